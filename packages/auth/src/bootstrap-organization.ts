import type { Knex } from 'knex';
import { generatePassword } from './password.ts';
import { UserRepository } from './user-repository.ts';

export interface BootstrapResult {
  organizationId: string;
  /** Set when this start created the first administrator. `password` only when it was generated. */
  createdAdmin: { email: string; generatedPassword: string | null } | null;
}

/**
 * On first start with an empty control plane: one organization and one administrator, from the
 * configured email and password, else `admin@localhost` with a random password for the caller to
 * print once. Safe when two processes start together (the second sees the first's organization).
 */
export async function bootstrapOrganization(
  db: Knex,
  options: { adminEmail: string | null; adminPassword: string | null; organizationName?: string },
): Promise<BootstrapResult> {
  return db.transaction(async (trx) => {
    // Why: serialises concurrent first starts without a separate lock table.
    await trx.raw('select pg_advisory_xact_lock(727001)');
    const existing = await trx('organizations').select('id').orderBy('created_at').first();
    if (existing) return { organizationId: existing.id, createdAdmin: null };
    const [org] = await trx('organizations')
      // Why a fixed slug: this is the first organization, so no other has it.
      .insert({ name: options.organizationName ?? 'Workspace', slug: 'workspace' })
      .returning(['id']);
    const email = options.adminEmail ?? 'admin@localhost';
    const generatedPassword = options.adminPassword ? null : generatePassword();
    await new UserRepository(trx).create({
      organizationId: org.id,
      email,
      name: 'Administrator',
      role: 'admin',
      password: options.adminPassword ?? generatedPassword,
    });
    return { organizationId: org.id, createdAdmin: { email, generatedPassword } };
  });
}
