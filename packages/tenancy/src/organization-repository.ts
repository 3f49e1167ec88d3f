import type { Knex } from 'knex';
import { slugOfOrganizationName } from './organization-slug.ts';

export const ORGANIZATION_STATES = ['provisioning', 'active', 'unavailable', 'retained'] as const;
export type OrganizationState = (typeof ORGANIZATION_STATES)[number];

/**
 * Why an organization is not active; `migration_failed` is cleared by the next successful migration, `operator` only by
 * an operator.
 */
export type StateCause = 'provisioning_failed' | 'migration_failed' | 'operator';

/** Provisioning steps in order; the organization records the last one completed. */
export const PROVISIONING_STEPS = [
  'recorded',
  'database_created',
  'migrated',
  'library_loaded',
  'administrator_created',
  'completed',
] as const;
export type ProvisioningStep = (typeof PROVISIONING_STEPS)[number];

export const ORGANIZATION_PLANS = ['free', 'team', 'business', 'enterprise'] as const;
export type OrganizationPlan = (typeof ORGANIZATION_PLANS)[number];

/** Where an organization's workspace lives and whether it may be used: what routing needs. */
export interface TenantLocation {
  organizationId: string;
  tenantServer: string;
  tenantDatabase: string;
  state: OrganizationState;
  stateReason: string | null;
}

export interface Organization extends TenantLocation {
  name: string;
  /** The short name users sign in with (hosted: the sign-in request names the organization by it). */
  slug: string;
  plan: OrganizationPlan;
  stateCause: StateCause | null;
  stateChangedAt: Date;
  provisioningStep: ProvisioningStep;
  createdAt: Date;
  retainedAt: Date | null;
}

type Row = {
  id: string;
  name: string;
  slug: string;
  plan: OrganizationPlan;
  tenant_server: string;
  tenant_database: string;
  state: OrganizationState;
  state_cause: StateCause | null;
  state_reason: string | null;
  state_changed_at: Date;
  provisioning_step: ProvisioningStep;
  created_at: Date;
  retained_at: Date | null;
};

const COLUMNS = [
  'id',
  'name',
  'slug',
  'plan',
  'tenant_server',
  'tenant_database',
  'state',
  'state_cause',
  'state_reason',
  'state_changed_at',
  'provisioning_step',
  'created_at',
  'retained_at',
];
const LOCATION_COLUMNS = ['id', 'tenant_server', 'tenant_database', 'state', 'state_reason'];

/** Reasons are shown to operators and stored; a migration error can be long. */
const MAX_REASON_LENGTH = 500;

function toOrganization(row: Row): Organization {
  return {
    organizationId: row.id,
    name: row.name,
    slug: row.slug,
    plan: row.plan,
    tenantServer: row.tenant_server,
    tenantDatabase: row.tenant_database,
    state: row.state,
    stateCause: row.state_cause,
    stateReason: row.state_reason,
    stateChangedAt: row.state_changed_at,
    provisioningStep: row.provisioning_step,
    createdAt: row.created_at,
    retainedAt: row.retained_at,
  };
}

function toLocation(
  row: Pick<Row, 'id' | 'tenant_server' | 'tenant_database' | 'state' | 'state_reason'>,
): TenantLocation {
  return {
    organizationId: row.id,
    tenantServer: row.tenant_server,
    tenantDatabase: row.tenant_database,
    state: row.state,
    stateReason: row.state_reason,
  };
}

function clip(reason: string): string {
  // Why: U+0000 never reaches PostgreSQL, and error texts may carry it.
  const clean = reason.replaceAll('\u0000', '\uFFFD');
  return clean.length > MAX_REASON_LENGTH ? `${clean.slice(0, MAX_REASON_LENGTH - 1)}…` : clean;
}

/** Organizations of the control plane: where each tenant database lives, its state and provisioning step. */
export class OrganizationRepository {
  constructor(private readonly db: Knex) {}

  async get(organizationId: string): Promise<Organization | null> {
    const row = await this.db('organizations').select(COLUMNS).where({ id: organizationId }).first();
    return row ? toOrganization(row) : null;
  }

  async findBySlug(slug: string): Promise<Organization | null> {
    const row = await this.db('organizations').select(COLUMNS).where({ slug }).first();
    return row ? toOrganization(row) : null;
  }

  /** What routing needs, one indexed row. */
  async locate(organizationId: string): Promise<TenantLocation | null> {
    const row = await this.db('organizations').select(LOCATION_COLUMNS).where({ id: organizationId }).first();
    return row ? toLocation(row) : null;
  }

  async list(filter: { states?: readonly OrganizationState[] } = {}): Promise<Organization[]> {
    const q = this.db('organizations')
      .select(COLUMNS)
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    if (filter.states) q.whereIn('state', filter.states as OrganizationState[]);
    return (await q).map(toOrganization);
  }

  /** An organization left in `provisioning` by an earlier run with this name, to resume it; the oldest when several. */
  async findProvisioning(name: string): Promise<Organization | null> {
    const row = await this.db('organizations')
      .select(COLUMNS)
      .where({ name, state: 'provisioning' })
      .orderBy('created_at')
      .first();
    return row ? toOrganization(row) : null;
  }

  /**
   * Records a new organization in `provisioning`, step `recorded`. Without a slug it gets the one
   * its name suggests followed by the first 8 hex digits of its id.
   */
  async insertProvisioning(input: {
    id: string;
    name: string;
    slug?: string;
    plan: OrganizationPlan;
    tenantServer: string;
    tenantDatabase: string;
  }): Promise<Organization> {
    const [row] = await this.db('organizations')
      .insert({
        id: input.id,
        name: input.name,
        slug: input.slug ?? `${slugOfOrganizationName(input.name)}-${input.id.replace(/-/g, '').slice(0, 8)}`,
        plan: input.plan,
        tenant_server: input.tenantServer,
        tenant_database: input.tenantDatabase,
        state: 'provisioning',
        provisioning_step: 'recorded',
      })
      .returning(COLUMNS);
    return toOrganization(row);
  }

  /** Records a completed provisioning step and clears the failure of an earlier run. */
  async recordStep(organizationId: string, step: ProvisioningStep): Promise<void> {
    await this.db('organizations')
      .where({ id: organizationId, state: 'provisioning' })
      .update({ provisioning_step: step, state_cause: null, state_reason: null });
  }

  /**
   * Provisioning stopped at a step: the organization stays in `provisioning` with the reason, for the next run and for
   * list-organizations.
   */
  async recordProvisioningFailure(organizationId: string, reason: string): Promise<void> {
    await this.db('organizations')
      .where({ id: organizationId, state: 'provisioning' })
      .update({ state_cause: 'provisioning_failed', state_reason: clip(reason) });
  }

  /** Provisioning finished: active. */
  async completeProvisioning(organizationId: string): Promise<void> {
    await this.db('organizations')
      .where({ id: organizationId, state: 'provisioning' })
      .update({
        state: 'active',
        provisioning_step: 'completed',
        state_cause: null,
        state_reason: null,
        state_changed_at: this.db.fn.now(3),
      });
  }

  /**
   * Keeps an active (or already unavailable) organization out of service. `operator` marks stay
   * until markActive; a `migration_failed` mark never replaces an operator's (a tenant being moved
   * stays out). Returns false when the organization was in no state to be marked.
   */
  async markUnavailable(
    organizationId: string,
    cause: 'migration_failed' | 'operator',
    reason: string,
  ): Promise<boolean> {
    const q = this.db('organizations').where({ id: organizationId }).whereIn('state', ['active', 'unavailable']);
    if (cause === 'migration_failed')
      q.andWhere((w) => w.whereNull('state_cause').orWhere('state_cause', 'migration_failed'));
    const n = await q.update({
      state: 'unavailable',
      state_cause: cause,
      state_reason: clip(reason),
      state_changed_at: this.db.raw("case when state = 'unavailable' then state_changed_at else now() end"),
    });
    return n > 0;
  }

  /**
   * Puts an unavailable organization back in service. With `cause`, only when it was kept out for
   * that cause (a successful migration clears a failed one, not an operator's mark).
   */
  async markActive(organizationId: string, cause?: 'migration_failed' | 'operator'): Promise<boolean> {
    const q = this.db('organizations').where({ id: organizationId, state: 'unavailable' });
    if (cause) q.andWhere({ state_cause: cause });
    const n = await q.update({
      state: 'active',
      state_cause: null,
      state_reason: null,
      state_changed_at: this.db.fn.now(3),
    });
    return n > 0;
  }

  /**
   * Points an organization at another server/database (after its data was copied there). Only while it is unavailable.
   */
  async relocate(organizationId: string, tenantServer: string, tenantDatabase: string): Promise<boolean> {
    const n = await this.db('organizations')
      .where({ id: organizationId, state: 'unavailable' })
      .update({ tenant_server: tenantServer, tenant_database: tenantDatabase });
    return n > 0;
  }

  /**
   * Deprovisions: state `retained`, and in the same transaction every API key of the organization
   * and every session of its users revoked, so nothing it holds opens the workspace a moment later.
   * The tenant database is left as it is. Returns null for an unknown organization.
   */
  async retain(
    organizationId: string,
    reason: string | null,
  ): Promise<{ organization: Organization; revokedKeys: number; revokedSessions: number } | null> {
    return this.db.transaction(async (trx) => {
      const current = await trx('organizations')
        .select('id', 'state')
        .where({ id: organizationId })
        .forUpdate()
        .first();
      if (!current) return null;
      if (current.state !== 'retained') {
        await trx('organizations')
          .where({ id: organizationId })
          .update({
            state: 'retained',
            state_cause: null,
            state_reason: reason === null ? null : clip(reason),
            state_changed_at: trx.fn.now(3),
            retained_at: trx.fn.now(3),
          });
      }
      const revokedKeys = await trx('api_keys')
        .where({ organization_id: organizationId })
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now(3) });
      const revokedSessions = await trx('sessions')
        .whereIn('user_id', trx('users').select('id').where({ organization_id: organizationId }))
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now(3) });
      const row = await trx('organizations').select(COLUMNS).where({ id: organizationId }).first();
      return { organization: toOrganization(row), revokedKeys, revokedSessions };
    });
  }
}
