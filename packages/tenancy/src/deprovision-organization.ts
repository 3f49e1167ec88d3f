import type { Knex } from 'knex';
import { OrganizationRepository, type Organization } from './organization-repository.ts';
import { TenancyError } from './tenancy-error.ts';

/**
 * Deprovisions: the organization becomes `retained`, its API keys and its users' sessions are
 * revoked in the same transaction, and its tenant database is kept untouched (dropping it is a
 * separate, deliberate operator step after the retention period). Idempotent.
 */
export async function deprovisionOrganization(
  controlPlane: Knex,
  organizationId: string,
  options: { reason?: string | null } = {},
): Promise<{ organization: Organization; revokedKeys: number; revokedSessions: number }> {
  const result = await new OrganizationRepository(controlPlane).retain(organizationId, options.reason ?? null);
  if (!result) throw new TenancyError('organization_not_found', `There is no organization ${organizationId}.`);
  return result;
}
