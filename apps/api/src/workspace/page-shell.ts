import type { Context } from 'koa';
import type { SessionPrincipal } from '@service/auth';
import { html, type SafeHtml } from './html-template.ts';

/** No inline script or style anywhere: everything the pages run or wear comes from /workspace/assets. */
export const WORKSPACE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export type PageName = 'sign-in' | 'api-keys' | 'admin' | 'forbidden';

const NAV: Array<{ page: PageName | 'app'; href: string; label: string; adminOnly: boolean }> = [
  { page: 'app', href: '/reports', label: 'Reports', adminOnly: false },
  { page: 'app', href: '/clients', label: 'Clients', adminOnly: false },
  { page: 'app', href: '/library', label: 'Library', adminOnly: false },
  { page: 'api-keys', href: '/profile/api-keys', label: 'API keys', adminOnly: false },
  { page: 'admin', href: '/admin', label: 'Administration', adminOnly: true },
];

function renderTopBar(page: PageName, session: SessionPrincipal | null): SafeHtml {
  if (!session) return html`<header class="topbar"><div class="wrap"><span class="brand">service</span></div></header>`;
  const links = NAV.filter((n) => !n.adminOnly || session.role === 'admin').map(
    (n) => html`<a href="${n.href}"${n.page === page ? html` aria-current="page"` : ''}>${n.label}</a>`,
  );
  return html`<header class="topbar"><div class="wrap">
<a class="brand" href="/reports">service</a>
<nav aria-label="Workspace">${links}</nav>
<div class="who"><span class="who-name">${session.name}</span> <span class="badge">${session.role}</span>
<button type="button" class="button secondary" data-action="sign-out">Sign out</button></div>
</div></header>`;
}

/** The document around every workspace page. */
export function renderPage(options: {
  title: string;
  page: PageName;
  session: SessionPrincipal | null;
  body: SafeHtml;
}): SafeHtml {
  const { title, page, session, body } = options;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/workspace/assets/workspace.css">
<script type="module" src="/workspace/assets/workspace.js"></script>
</head>
<body data-page="${page}" data-user-id="${session?.userId}">
<a class="skip-link" href="#main">Skip to content</a>
${renderTopBar(page, session)}
<main id="main" class="wrap" tabindex="-1">
${body}
</main>
</body>
</html>
`;
}

function setPageHeaders(ctx: Context, csp = WORKSPACE_CSP): void {
  ctx.set('Content-Security-Policy', csp);
  // Why: pages hold per-user data (and, briefly, one-time secrets); nothing may keep a copy.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

export function sendPage(ctx: Context, status: number, page: SafeHtml, csp?: string): void {
  setPageHeaders(ctx, csp);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page.markup;
}

/** A 302 that no cache keeps: where it points depends on who is signed in. */
export function redirectPage(ctx: Context, location: string): void {
  setPageHeaders(ctx);
  ctx.redirect(location);
}
