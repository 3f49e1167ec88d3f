import { html, type SafeHtml } from './html-template.ts';
import { renderPage } from './page-shell.ts';

export function renderSignInPage(): SafeHtml {
  const body = html`<section class="card narrow" aria-labelledby="sign-in-heading">
<h1 id="sign-in-heading">Sign in</h1>
<noscript><p class="notice">Signing in needs JavaScript; please enable it for this site.</p></noscript>
<form id="sign-in-form" method="post">
<div class="field"><label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" autofocus></div>
<div class="field"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required></div>
<p class="alert" role="alert" id="form-error"></p>
<button type="submit" class="button primary">Sign in</button>
</form>
</section>`;
  return renderPage({ title: 'Sign in', page: 'sign-in', session: null, body });
}
