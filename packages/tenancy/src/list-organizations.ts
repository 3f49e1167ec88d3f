import type { Knex } from 'knex';
import { OrganizationRepository, type Organization } from './organization-repository.ts';

/** Every organization, oldest first, for `list-organizations`. */
export async function listOrganizations(controlPlane: Knex): Promise<Organization[]> {
  return new OrganizationRepository(controlPlane).list();
}
