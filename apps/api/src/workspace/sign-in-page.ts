import { html, type SafeHtml } from './html-template.ts';
import { renderPage } from './page-shell.ts';

/** The organization slugs the sign-in form accepts (letter case does not matter). */
const SLUG_INPUT = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * The sign-in page. Hosted, it also asks for the organization (an e-mail address may have accounts
 * in several), filled in from the sign-in link's `?organization=<slug>`.
 */
export function renderSignInPage(options: { hosted: boolean; organization?: string } = { hosted: false }): SafeHtml {
  const organization =
    options.organization !== undefined && SLUG_INPUT.test(options.organization) ? options.organization : '';
  const organizationField =
    options.hosted &&
    html`<div class="field"><label for="organization">Organization</label>
<input id="organization" name="organization" type="text" autocomplete="organization" required maxlength="63"
 pattern="[A-Za-z0-9]+(-+[A-Za-z0-9]+)*" spellcheck="false" autocapitalize="none" value="${organization}"
 aria-describedby="organization-hint"${organization ? '' : html` autofocus`}>
<p class="hint" id="organization-hint">The short name in your organization's sign-in link.</p></div>`;
  const body = html`<section class="card narrow" aria-labelledby="sign-in-heading">
<h1 id="sign-in-heading">Sign in</h1>
<noscript><p class="notice">Signing in needs JavaScript; please enable it for this site.</p></noscript>
<form id="sign-in-form" method="post">
${organizationField}
<div class="field"><label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320"${options.hosted && !organization ? '' : html` autofocus`}></div>
<div class="field"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required></div>
<p class="alert" role="alert" id="form-error"></p>
<button type="submit" class="button primary">Sign in</button>
</form>
</section>`;
  return renderPage({ title: 'Sign in', page: 'sign-in', session: null, body });
}
