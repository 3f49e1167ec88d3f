import { LastAdministratorError } from '@service/auth';
import { defineCommand, OperatorError } from '@service/cli-kit';
import type { AdminContext } from '../admin-context.ts';

export const deactivateUser = defineCommand<AdminContext, { email: string; organization?: string }>({
  name: 'deactivate-user',
  summary: "Deactivate a user and revoke all of that user's API keys and sessions",
  options: [
    { flags: '--email <email>', description: "the user's email", required: true },
    {
      flags: '--organization <id>',
      description: 'hosted: the organization (see list-organizations); self-hosted has one',
    },
  ],
  examples: ['npm run admin -- deactivate-user --email tess@example.com'],
  async run(ctx, options) {
    // E-mail addresses are unique per organization: the organization and the email name the user.
    const user = await ctx.users.findByEmail(
      await ctx.organizationFor(options.organization),
      options.email.toLowerCase(),
    );
    if (!user)
      throw new OperatorError(`No user with the email ${options.email}.`, {
        hint: 'List users with: npm run admin -- list-users',
      });
    try {
      // Why no check before: the repository checks and deactivates in one transaction, so two
      // administrators deactivating each other cannot both succeed.
      await ctx.users.deactivate(user.organizationId, user.id, user.id);
    } catch (err) {
      if (err instanceof LastAdministratorError)
        throw new OperatorError(`${user.email} is the last active administrator.`, {
          hint: 'Make another user an administrator first.',
        });
      throw err;
    }
    ctx.print(`Deactivated ${user.email}; their API keys and sessions are revoked.`);
  },
});
