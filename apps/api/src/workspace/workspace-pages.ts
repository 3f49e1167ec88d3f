import type { Context } from 'koa';
import type { SessionPrincipal } from '@service/auth';
import type { AppContext } from '../app-context.ts';
import { presentApiKey, presentUser } from '../identity/identity-schemas.ts';
import { renderAdminForbiddenPage, renderAdminPage } from './admin-page.ts';
import { renderApiKeysPage } from './api-keys-page.ts';
import type { SafeHtml } from './html-template.ts';
import { redirectPage, sendPage } from './page-shell.ts';
import { renderSignInPage } from './sign-in-page.ts';
import { registerWorkspaceAssets } from './workspace-assets.ts';

/**
 * The small server-rendered workspace: sign-in, API keys, and for administrators keys and users.
 * Pages render their lists server-side (readable without JavaScript); workspace.js performs the
 * actions through the JSON endpoints under /api and re-renders the lists from their answers.
 */
export function registerWorkspacePages(app: AppContext): void {
  const { router, identity } = app;

  /** A page for signed-in users; everyone else is sent to the sign-in page. */
  function signedInPage(path: string, render: (session: SessionPrincipal) => Promise<{ status: number; page: SafeHtml }>): void {
    router.get(path, async (ctx: Context) => {
      const session = await app.sessionOf(ctx);
      if (!session) return redirectPage(ctx, '/');
      const { status, page } = await render(session);
      sendPage(ctx, status, page);
    });
  }

  router.get('/', async (ctx) => {
    if (await app.sessionOf(ctx)) return redirectPage(ctx, '/profile/api-keys');
    sendPage(ctx, 200, renderSignInPage());
  });

  signedInPage('/profile/api-keys', async (session) => {
    const keys = await identity.apiKeys.listForUser(session.organizationId, session.userId);
    return { status: 200, page: renderApiKeysPage({ session, keys: keys.map(presentApiKey), now: new Date() }) };
  });

  signedInPage('/admin', async (session) => {
    if (session.role !== 'admin') return { status: 403, page: renderAdminForbiddenPage(session) };
    const [keys, users] = await Promise.all([identity.apiKeys.listForOrganization(session.organizationId), identity.users.list(session.organizationId)]);
    return { status: 200, page: renderAdminPage({ session, keys: keys.map(presentApiKey), users: users.map(presentUser) }) };
  });

  registerWorkspaceAssets(app);
}
