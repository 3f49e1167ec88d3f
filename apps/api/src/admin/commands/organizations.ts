import { generatePassword, UserRepository } from '@service/auth';
import { defineCommand, OperatorError } from '@service/cli-kit';
import { importGlobals, loadLibrary } from '@service/library';
import {
  deprovisionOrganization,
  listOrganizations,
  ORGANIZATION_PLANS,
  provisionOrganization,
  TenancyError,
  type OrganizationPlan,
} from '@service/tenancy';
import { LIBRARY_ROOT } from '../../library/prepare-workspace-library.ts';
import { libraryFileStore } from '../../library/library-file-store.ts';
import type { AdminContext } from '../admin-context.ts';

const HOSTED_ONLY = {
  hint:
    'Organizations are managed in the hosted edition (SERVICE_EDITION=hosted); a ' +
    'self-hosted installation has exactly one.',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkId(id: string | undefined): void {
  if (id !== undefined && !UUID.test(id))
    throw new OperatorError(`"${id.slice(0, 80)}" is not an organization id.`, {
      hint: 'List organizations with: npm run admin -- list-organizations',
    });
}

function topologyOf(ctx: AdminContext) {
  // The router's: the servers prepareService parsed from TENANT_SERVERS.
  const topology = ctx.tenants.topology;
  if (!topology) throw new OperatorError('This installation is self-hosted.', HOSTED_ONLY);
  return topology;
}

/** The tenancy errors already say what is wrong; each gets the next step. */
function operatorErrorOf(err: unknown, hint: string): unknown {
  return err instanceof TenancyError ? new OperatorError(err.message, { hint, cause: err }) : err;
}

/**
 * `npm run admin -- create-organization`: records the organization, creates and migrates its tenant
 * database on the named server, loads the global library and creates its first administrator;
 * each step is recorded, so running the same command again after a failure resumes.
 */
export const createOrganization = defineCommand<
  AdminContext,
  { name: string; plan: string; server: string; adminEmail: string; slug?: string; id?: string }
>({
  name: 'create-organization',
  summary: 'Hosted: create an organization with its tenant database, library and first administrator (resumable)',
  description:
    'Steps: record the organization, create its database on the tenant server, ' +
    'migrate it, load the global library, create the first administrator (its ' +
    'generated password is printed once), mark it active. When a step fails, fix the ' +
    'cause and run the same command again: it resumes after the last completed step.',
  options: [
    { flags: '--name <name>', description: 'organization name', required: true },
    { flags: '--plan <plan>', description: `one of ${ORGANIZATION_PLANS.join(', ')}`, required: true },
    { flags: '--server <name>', description: 'tenant server from TENANT_SERVERS (or default)', required: true },
    { flags: '--admin-email <email>', description: "the first administrator's email", required: true },
    {
      flags: '--slug <slug>',
      description:
        'the short name its users sign in with (lower-case letters, digits, "-"); default: derived from --name',
    },
    {
      flags: '--id <organization id>',
      description: 'resume this organization (default: the one still provisioning under --name)',
    },
  ],
  examples: [
    'npm run admin -- create-organization --name "Acme" --plan business --server eu1 --admin-email it@acme.example',
  ],
  async run(ctx, options) {
    const topology = topologyOf(ctx);
    checkId(options.id);
    if (!(ORGANIZATION_PLANS as readonly string[]).includes(options.plan))
      throw new OperatorError(`Unknown plan "${options.plan}".`, {
        hint: `Use one of: ${ORGANIZATION_PLANS.join(', ')}.`,
      });
    const users = new UserRepository(ctx.dbs.controlPlane);
    let password: string | null = null;
    try {
      const result = await provisionOrganization(
        {
          controlPlane: ctx.dbs.controlPlane,
          topology,
          loadLibrary: async (tenantDb, outside) => {
            const files = libraryFileStore(ctx.files.of(outside.organizationId, outside.tenant));
            await importGlobals(tenantDb, await loadLibrary(LIBRARY_ROOT), { files });
          },
          createAdministrator: async ({ organizationId, email }) => {
            password = generatePassword();
            await users.create({ organizationId, email, name: 'Administrator', role: 'admin', password });
          },
          logger: {
            debug: () => {},
            info: (event, fields) => {
              if (event === 'organization_provisioning_step')
                ctx.print(`ok ${String(fields?.step)} (${String(fields?.durationMs)} ms)`);
              if (event === 'organization_provisioning_waiting')
                ctx.print('Another run is provisioning this organization; waiting for it to finish.');
            },
            warn: () => {},
            error: () => {},
          },
        },
        {
          name: options.name,
          plan: options.plan as OrganizationPlan,
          server: options.server,
          adminEmail: options.adminEmail.toLowerCase(),
          slug: options.slug?.toLowerCase(),
          organizationId: options.id,
        },
      );
      const org = result.organization;
      ctx.print(
        `${result.resumed ? 'Resumed' : 'Created'} organization ${org.name} ` +
          `(${org.organizationId}), plan ${org.plan}, tenant database ${org.tenantDatabase} ` +
          `on ${org.tenantServer}: ${org.state}. Its users sign in to the organization ` +
          `"${org.slug}" (sign-in link: /?organization=${org.slug}).`,
      );
      if (result.stepsRun.length > 0) ctx.print(`Steps run: ${result.stepsRun.join(', ')}.`);
      if (password)
        ctx.print(
          `Administrator ${options.adminEmail.toLowerCase()}, password: ${password} (shown ` +
            `once; change it after signing in).`,
        );
    } catch (err) {
      throw operatorErrorOf(
        err,
        'Fix the cause and run the same command again; it resumes after the last completed step.',
      );
    }
  },
});

export const listOrganizationsCommand = defineCommand<AdminContext, Record<string, never>>({
  name: 'list-organizations',
  summary: 'Hosted: list organizations with plan, tenant server and database, state and slug',
  options: [],
  examples: ['npm run admin -- list-organizations'],
  async run(ctx) {
    topologyOf(ctx);
    const organizations = await listOrganizations(ctx.dbs.controlPlane);
    ctx.print(
      [
        'id'.padEnd(36),
        'plan'.padEnd(10),
        'server'.padEnd(12),
        'database'.padEnd(40),
        'state'.padEnd(12),
        'slug'.padEnd(24),
        'name',
      ].join(' '),
    );
    for (const o of organizations) {
      const state =
        o.state === 'active'
          ? o.state
          : `${o.state}${o.stateCause ? ` (${o.stateCause}${o.stateReason ? `: ${o.stateReason}` : ''})` : ''}`;
      ctx.print(
        [
          o.organizationId.padEnd(36),
          o.plan.padEnd(10),
          o.tenantServer.padEnd(12),
          o.tenantDatabase.padEnd(40),
          state.padEnd(12),
          o.slug.padEnd(24),
          o.name,
        ].join(' '),
      );
    }
  },
});

export const deprovisionOrganizationCommand = defineCommand<AdminContext, { id: string; reason?: string }>({
  name: 'deprovision-organization',
  summary: 'Hosted: close an organization (keys and sessions revoked, its tenant database kept)',
  description:
    'Sets the organization to retained: nobody signs in, its API keys and sessions ' +
    'stop working at once. The tenant database is never dropped here; drop it by hand ' +
    'when the retention period is over.',
  options: [
    { flags: '--id <organization id>', description: 'the organization', required: true },
    { flags: '--reason <text>', description: 'why, kept with the organization' },
  ],
  examples: [
    'npm run admin -- deprovision-organization --id 0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b --reason "contract ended"',
  ],
  async run(ctx, options) {
    topologyOf(ctx);
    checkId(options.id);
    try {
      const { organization, revokedKeys, revokedSessions } = await deprovisionOrganization(
        ctx.dbs.controlPlane,
        options.id,
        { reason: options.reason ?? null },
      );
      ctx.print(
        `Organization ${organization.name} (${organization.organizationId}) is retained: ` +
          `${revokedKeys} API keys and ${revokedSessions} sessions revoked; tenant database ` +
          `${organization.tenantDatabase} on ${organization.tenantServer} kept.`,
      );
    } catch (err) {
      throw operatorErrorOf(err, 'List organizations with: npm run admin -- list-organizations');
    }
  },
});
