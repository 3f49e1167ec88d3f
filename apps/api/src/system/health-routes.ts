import { Type } from 'typebox';
import { checkDatabases } from '@service/db';
import { checkTenantServers } from '@service/tenancy';
import type { AppContext } from '../app-context.ts';
import { defineAppRoute } from '../rest/define-app-route.ts';

const CheckValue = Type.String({
  description: '`ok`, or a short reason why that database cannot be queried.',
  examples: ['ok', 'connection refused'],
});

const HealthSchema = Type.Object({
  status: Type.Enum(['ok', 'degraded']),
  version: Type.String(),
  checks: Type.Object({ controlPlane: CheckValue, shared: CheckValue, tenant: CheckValue }),
  tenantServers: Type.Optional(
    Type.Record(Type.String(), CheckValue, {
      description:
        'Hosted edition: each tenant server by its name in `TENANT_SERVERS` (and ' +
        '`default`), `ok` or a short reason; never a host or password. Absent in ' +
        'self-hosted installations.',
    }),
  ),
});

const VersionSchema = Type.Object({
  version: Type.String(),
  edition: Type.Enum(['self-hosted', 'hosted']),
  sha: Type.Optional(Type.String({ description: 'Source commit. Signed-in administrators only.' })),
  node: Type.Optional(Type.String({ description: 'Node.js runtime version. Signed-in administrators only.' })),
});

export function registerHealthRoutes(app: AppContext): void {
  const { registry, deps } = app;
  registry.addTag('System', 'Health and version, public.');
  registry.addSchema('Health', HealthSchema);
  registry.addSchema('Version', VersionSchema);

  defineAppRoute(app, {
    method: 'get',
    path: '/api/health',
    operationId: 'getHealth',
    summary: 'Service health',
    description:
      'Queries the three databases, each with a short timeout (`HEALTH_TIMEOUT_MS`); ' +
      'the hosted edition also connects to each tenant server (`tenantServers`). ' +
      'Public, no licence needed; used by the container health check. Limited to 6,000 ' +
      'requests a minute per client address (shared with `/api/version`, apart from the ' +
      'REST budget): far above any monitor, yet it cannot be used to load the databases.',
    tags: ['System'],
    access: 'public',
    rateLimited: true,
    responses: {
      200: {
        description: 'All three databases answer.',
        schema: 'Health',
        example: {
          status: 'ok',
          version: deps.build.version,
          checks: { controlPlane: 'ok', shared: 'ok', tenant: 'ok' },
        },
      },
      503: {
        description:
          'At least one database (or, hosted, tenant server) cannot be queried; the failing check says which and why.',
        schema: 'Health',
        example: {
          status: 'degraded',
          version: deps.build.version,
          checks: { controlPlane: 'ok', shared: 'ok', tenant: 'connection refused' },
        },
      },
    },
    async handler(ctx) {
      const topology = deps.tenants.topology;
      const [{ ok, checks }, servers] = await Promise.all([
        checkDatabases(deps.dbs, deps.config.healthTimeoutMs),
        topology ? checkTenantServers(topology.servers, deps.config.healthTimeoutMs) : null,
      ]);
      const healthy = ok && (servers?.ok ?? true);
      ctx.set('Cache-Control', 'no-store');
      ctx.status = healthy ? 200 : 503;
      ctx.body = {
        status: healthy ? 'ok' : 'degraded',
        version: deps.build.version,
        checks,
        ...(servers ? { tenantServers: servers.servers } : {}),
      };
    },
  });

  defineAppRoute(app, {
    method: 'get',
    path: '/api/version',
    operationId: 'getVersion',
    summary: 'Running version',
    description:
      'Public, no licence needed. `sha` and `node` are added for a signed-in ' +
      'administrator session. Limited to 6,000 requests a minute per client address ' +
      '(shared with `/api/health`, apart from the REST budget).',
    tags: ['System'],
    access: 'public',
    rateLimited: true,
    responses: {
      200: {
        description: 'The running version.',
        schema: 'Version',
        example: { version: deps.build.version, edition: 'self-hosted' },
      },
    },
    async handler(ctx) {
      const session = await app.sessionOf(ctx);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = versionBody(
        deps.build.version,
        deps.config.edition,
        session?.role === 'admin' ? { sha: deps.build.sha, node: process.version } : null,
      );
    },
  });
}

/** The public fields, plus the administrator-only ones when `extra` is given. */
export function versionBody(
  version: string,
  edition: string,
  extra: { sha: string; node: string } | null,
): Record<string, string> {
  return extra ? { version, edition, ...extra } : { version, edition };
}
