import type { Context } from 'koa';
import type { SessionPrincipal } from '@service/auth';
import type { AppContext } from '../app-context.ts';
import { presentApiKey, presentUser } from '../identity/identity-schemas.ts';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';
import { renderAdminForbiddenPage, renderAdminPage } from './admin-page.ts';
import { renderApiKeysPage, type ClientChoices } from './api-keys-page.ts';
import type { ClientChoice } from './client-picker.ts';
import type { SafeHtml } from './html-template.ts';
import { redirectPage, sendPage } from './page-shell.ts';
import { renderSignInPage } from './sign-in-page.ts';
import { registerWorkspaceAssets } from './workspace-assets.ts';

/** Where a signed-in person starts: the reports of the workspace app. */
export const WORKSPACE_HOME = '/reports';

/** Most clients a page lists by name (the pickers search within them). */
const MAX_CLIENT_CHOICES = 2000;

/**
 * The small server-rendered workspace: sign-in, API keys, and for administrators keys and users.
 * Pages render their lists server-side (readable without JavaScript); workspace.js performs the
 * actions through the JSON endpoints under /api and re-renders the lists from their answers.
 */
export function registerWorkspacePages(app: AppContext): void {
  const { router, identity } = app;

  /**
   * The clients the signed-in person can put on a key's allow-list, by name, read through the
   * workspace repositories as that person (read-only), so visibility is the REST API's.
   * Why externals differ: clients are never shared with them, but the projects and reports shared
   * with them belong to clients, and their keys need those clients to edit what is shared.
   */
  async function clientChoices(ctx: Context, session: SessionPrincipal): Promise<ClientChoices> {
    const tenant = await app.tenantOf(ctx, session.organizationId);
    const reader: RestPrincipal = {
      keyId: `session:${session.sessionId}`,
      userId: session.userId,
      organizationId: session.organizationId,
      role: session.role,
      scope: 'read-only',
      allowedClientIds: [],
      plan: '',
      tenantDatabase: session.tenantDatabase,
      tenant,
    };
    const page = { filters: {}, offset: 0, limit: MAX_CLIENT_CHOICES };
    if (session.role !== 'external') {
      const { rows, total } = await app.repositories.clients.list(tenant, reader, page);
      return { clients: rows.map((r) => ({ id: r.id, name: r.name })), truncated: total > rows.length };
    }
    const through = new Map<string, string[]>();
    const projects = await app.repositories.projects.list(tenant, reader, page);
    const reports = await app.repositories.reports.list(tenant, reader, page);
    const truncated = projects.total > projects.rows.length || reports.total > reports.rows.length;
    for (const [clientId, name] of [
      ...projects.rows.map((r) => [r._client_id, r.name] as const),
      ...reports.rows.map((r) => [r._client_id, r.title] as const),
    ]) {
      if (clientId) through.set(clientId, [...(through.get(clientId) ?? []), name]);
    }
    const clients: ClientChoice[] = [...through].map(([id, names]) => ({
      id,
      name: `Client of ${[...new Set(names)].join(', ')}`,
    }));
    return { clients: clients.sort((a, b) => a.name.localeCompare(b.name)), truncated };
  }

  /** A page for signed-in users; everyone else is sent to the sign-in page. */
  function signedInPage(
    path: string,
    render: (session: SessionPrincipal, ctx: Context) => Promise<{ status: number; page: SafeHtml }>,
  ): void {
    app.registry.addUndocumentedRoute('GET', path, 'an HTML page of the workspace');
    router.get(path, async (ctx: Context) => {
      const session = await app.sessionOf(ctx);
      if (!session) return redirectPage(ctx, '/');
      const { status, page } = await render(session, ctx);
      sendPage(ctx, status, page);
    });
  }

  app.registry.addUndocumentedRoute('GET', '/', 'the sign-in page (HTML) of the workspace');
  router.get('/', async (ctx) => {
    if (await app.sessionOf(ctx)) return redirectPage(ctx, WORKSPACE_HOME);
    const organization = typeof ctx.query.organization === 'string' ? ctx.query.organization : undefined;
    sendPage(ctx, 200, renderSignInPage({ hosted: app.deps.config.edition === 'hosted', organization }));
  });

  signedInPage('/profile/api-keys', async (session, ctx) => {
    const [keys, choices] = await Promise.all([
      identity.apiKeys.listForUser(session.organizationId, session.userId),
      clientChoices(ctx, session),
    ]);
    return {
      status: 200,
      page: renderApiKeysPage({ session, keys: keys.map(presentApiKey), now: new Date(), choices }),
    };
  });

  signedInPage('/admin', async (session, ctx) => {
    if (session.role !== 'admin') return { status: 403, page: renderAdminForbiddenPage(session) };
    const [keys, users, choices, organization] = await Promise.all([
      identity.apiKeys.listForOrganization(session.organizationId),
      identity.users.list(session.organizationId),
      clientChoices(ctx, session),
      app.deps.config.edition === 'hosted'
        ? app.deps.dbs.controlPlane('organizations').where({ id: session.organizationId }).first('slug')
        : null,
    ]);
    return {
      status: 200,
      page: renderAdminPage({
        session,
        keys: keys.map(presentApiKey),
        users: users.map(presentUser),
        clients: choices.clients,
        signInSlug: (organization as { slug: string } | null | undefined)?.slug ?? null,
        // Why not the location when hosted: the store is the operator's, shared by every organization.
        fileStore:
          app.deps.config.edition === 'hosted'
            ? { ...app.fileStore.snapshot(), where: "the hosted service's store" }
            : app.fileStore.snapshot(),
      }),
    };
  });

  registerWorkspaceAssets(app);
}
