import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex, ensureDatabase, type Logger } from '@service/db';
import { LOCK_SPACE, withControlPlaneLock } from './control-plane-lock.ts';
import {
  OrganizationRepository,
  PROVISIONING_STEPS,
  type Organization,
  type OrganizationPlan,
  type ProvisioningStep,
} from './organization-repository.ts';
import { TenancyError } from './tenancy-error.ts';
import { ORGANIZATION_SLUG, slugOfOrganizationName } from './organization-slug.ts';
import { tenantDatabaseName } from './tenant-database-name.ts';
import { describeTenantFailure, migrateTenantDatabase } from './tenant-migrations.ts';
import { resolveTenantUrl, type TenantTopology } from './tenant-topology.ts';

export interface ProvisionOrganizationDeps {
  controlPlane: Knex;
  topology: TenantTopology;
  /**
   * Loads the global library into the new tenant database (`importGlobals(tenantDb, shared, ...)`
   * of @service/library). Runs inside one tenant transaction, so a failure leaves nothing behind;
   * it should also be idempotent (upsert by global_key), because a crash between its commit and the
   * step being recorded runs it again. `outside` is the organization's id and its tenant database
   * outside that transaction, for what must commit on its own (the record of a file being stored).
   */
  loadLibrary(tenantDb: Knex, outside: { organizationId: string; tenant: Knex }): Promise<void>;
  /**
   * Creates the first administrator in the control plane (e.g. UserRepository.create with a
   * generated password the caller prints). Called only when no user with that email exists in the
   * organization yet (another organization may have a user with that email).
   */
  createAdministrator(input: { organizationId: string; email: string }): Promise<void>;
  logger?: Logger;
  /** Tests inject a broken source; default the tenant migrations of `migrations/tenant`. */
  migrations?: Knex.MigratorConfig;
}

export interface ProvisionOrganizationInput {
  name: string;
  plan: OrganizationPlan;
  /** A server name of the topology (`default` or one of TENANT_SERVERS). */
  server: string;
  adminEmail: string;
  /**
   * The short name its users sign in with (lower-case letters, digits, inner `-`). Default: derived
   * from the name, with part of the id appended when another organization has that one.
   */
  slug?: string;
  /**
   * Resume this organization. Without it, an organization still `provisioning` under the same name
   * is resumed, and otherwise a new one is created.
   */
  organizationId?: string;
}

export interface ProvisionOrganizationResult {
  organization: Organization;
  resumed: boolean;
  /** Steps this run completed (an already active organization: none). */
  stepsRun: ProvisioningStep[];
}

const MAX_NAME_LENGTH = 200;
const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}$/;

function validate(input: ProvisionOrganizationInput, topology: TenantTopology): void {
  const name = input.name.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: an organization name may hold no control character.
  if (name === '' || name.length > MAX_NAME_LENGTH || /[\u0000-\u001f]/.test(name)) {
    throw new TenancyError(
      'provisioning_failed',
      `The organization name must be 1 to ${MAX_NAME_LENGTH} characters without control characters.`,
    );
  }
  if (!EMAIL.test(input.adminEmail))
    throw new TenancyError('provisioning_failed', `"${input.adminEmail.slice(0, 100)}" is not an email address.`);
  if (input.slug !== undefined && !ORGANIZATION_SLUG.test(input.slug)) {
    throw new TenancyError(
      'provisioning_failed',
      `"${input.slug.slice(0, 100)}" is not a slug: use 1 to 63 lower-case letters, digits and inner "-".`,
    );
  }
  if (!topology.servers.some((s) => s.name === input.server)) {
    throw new TenancyError(
      'provisioning_failed',
      `There is no tenant server "${input.server}"; the configured ones are ` +
        `${topology.servers.map((s) => `"${s.name}"`).join(', ')} (TENANT_SERVERS).`,
    );
  }
}

/**
 * The slug a new organization gets: the one asked for, refused when another organization has it;
 * otherwise the one its name suggests, with the first 8 hex digits of its id appended when taken.
 */
async function freeSlug(
  organizations: OrganizationRepository,
  id: string,
  name: string,
  asked: string | undefined,
): Promise<string> {
  const candidates = asked
    ? [asked]
    : [slugOfOrganizationName(name), `${slugOfOrganizationName(name)}-${id.replace(/-/g, '').slice(0, 8)}`];
  for (const slug of candidates) if (!(await organizations.findBySlug(slug))) return slug;
  throw new TenancyError(
    'slug_taken',
    `The slug "${candidates[0]}" is taken by another organization; choose another with --slug.`,
  );
}

function done(org: Organization, step: ProvisioningStep): boolean {
  return PROVISIONING_STEPS.indexOf(org.provisioningStep) >= PROVISIONING_STEPS.indexOf(step);
}

/**
 * Provisions a hosted organization in recorded, idempotent steps: record it (`provisioning`),
 * create its tenant database on the named server, migrate it, load the global library, create its
 * first administrator, then `active`. A step that fails leaves the organization in `provisioning`
 * with the reason; running again (same name, or the organization id) resumes after the last step
 * completed. Two runs for the same organization at once: the second waits for the first.
 */
export async function provisionOrganization(
  deps: ProvisionOrganizationDeps,
  input: ProvisionOrganizationInput,
): Promise<ProvisionOrganizationResult> {
  validate(input, deps.topology);
  const organizations = new OrganizationRepository(deps.controlPlane);
  const name = input.name.trim();

  let org: Organization | null = input.organizationId
    ? await organizations.get(input.organizationId)
    : await organizations.findProvisioning(name);
  if (input.organizationId && !org)
    throw new TenancyError('provisioning_failed', `There is no organization ${input.organizationId} to resume.`);
  const resumed = org !== null;
  if (org && org.state !== 'provisioning') {
    if (org.state === 'active' && org.provisioningStep === 'completed')
      return { organization: org, resumed: true, stepsRun: [] };
    throw new TenancyError(
      'provisioning_failed',
      `Organization ${org.organizationId} is ${org.state}; only an organization in provisioning can be resumed.`,
    );
  }
  if (org && org.tenantServer !== input.server) {
    throw new TenancyError(
      'provisioning_failed',
      `Organization ${org.organizationId} is being provisioned on server ` +
        `"${org.tenantServer}", not "${input.server}"; run the command again with ` +
        `--server ${org.tenantServer}.`,
    );
  }
  if (org && input.slug !== undefined && input.slug !== org.slug) {
    throw new TenancyError(
      'provisioning_failed',
      `Organization ${org.organizationId} is being provisioned with the slug "${org.slug}", not ` +
        `"${input.slug}"; run the command again with --slug ${org.slug}.`,
    );
  }
  if (!org) {
    const id = randomUUID();
    org = await organizations
      .insertProvisioning({
        id,
        name,
        slug: await freeSlug(organizations, id, name, input.slug),
        plan: input.plan,
        tenantServer: input.server,
        tenantDatabase: tenantDatabaseName(id),
      })
      .catch((err: unknown) => {
        // Why: another organization took the slug between the check and the insert.
        if ((err as { constraint?: string }).constraint === 'organizations_slug_unique')
          throw new TenancyError('slug_taken', `The slug is taken by another organization; choose one with --slug.`);
        throw err;
      });
    deps.logger?.info('organization_provisioning', {
      organizationId: id,
      server: input.server,
      database: org.tenantDatabase,
    });
  }
  const organizationId = org.organizationId;

  const locked = await withControlPlaneLock(
    deps.controlPlane,
    LOCK_SPACE.provisioning,
    organizationId,
    () => runSteps(deps, organizations, organizationId, input.adminEmail),
    {
      maxWaitMs: 60 * 60_000,
      onWait: () =>
        deps.logger?.info('organization_provisioning_waiting', {
          organizationId,
          message: 'another run is provisioning this organization',
        }),
    },
  );
  if (!locked.acquired)
    throw new TenancyError(
      'provisioning_in_progress',
      `Another run has been provisioning organization ${organizationId} for over an hour.`,
    );
  return { organization: (await organizations.get(organizationId))!, resumed, stepsRun: locked.value };
}

async function runSteps(
  deps: ProvisionOrganizationDeps,
  organizations: OrganizationRepository,
  organizationId: string,
  adminEmail: string,
): Promise<ProvisioningStep[]> {
  // Why re-read under the lock: another run may have completed steps while this one waited.
  const org = (await organizations.get(organizationId))!;
  const stepsRun: ProvisioningStep[] = [];
  if (org.state !== 'provisioning') return stepsRun;
  const url = resolveTenantUrl(deps.topology, org);
  const steps: Array<{ step: ProvisioningStep; run(): Promise<void> }> = [
    { step: 'database_created', run: () => ensureDatabase(url) },
    {
      step: 'migrated',
      run: async () => {
        await migrateTenantDatabase({
          controlPlane: deps.controlPlane,
          organizationId,
          url,
          migrations: deps.migrations,
        });
      },
    },
    {
      step: 'library_loaded',
      run: async () => {
        const tenant = createKnex(url, 2, 'service:tenant-provision', {
          acquireTimeoutMs: 10_000,
          statementTimeoutMs: 0,
        });
        try {
          await tenant.transaction((trx) => deps.loadLibrary(trx, { organizationId, tenant }));
        } finally {
          await tenant.destroy();
        }
      },
    },
    {
      step: 'administrator_created',
      run: async () => {
        // Why only this organization: an address may have an account in others (e-mail addresses
        // are unique per organization), and provisioning must not tell whether it has.
        const existing = await deps
          .controlPlane('users')
          .select('id')
          .where({ organization_id: organizationId, email: adminEmail })
          .first();
        if (existing) return;
        await deps.createAdministrator({ organizationId, email: adminEmail });
      },
    },
  ];
  for (const { step, run } of steps) {
    if (done(org, step)) continue;
    const started = Date.now();
    try {
      await run();
    } catch (err) {
      const reason =
        `${step.replace(/_/g, ' ')} step failed: ` +
        `${err instanceof TenancyError ? err.message : describeTenantFailure(err)}`;
      await organizations.recordProvisioningFailure(organizationId, reason).catch(() => {});
      deps.logger?.error('organization_provisioning_failed', { organizationId, step, reason });
      throw new TenancyError(
        'provisioning_failed',
        `Provisioning organization ${organizationId} stopped: ${reason}. Fix the cause ` +
          `and run the same command again; it resumes at this step.`,
        { cause: err },
      );
    }
    await organizations.recordStep(organizationId, step);
    stepsRun.push(step);
    deps.logger?.info('organization_provisioning_step', { organizationId, step, durationMs: Date.now() - started });
  }
  await organizations.completeProvisioning(organizationId);
  stepsRun.push('completed');
  deps.logger?.info('organization_provisioned', { organizationId });
  return stepsRun;
}
