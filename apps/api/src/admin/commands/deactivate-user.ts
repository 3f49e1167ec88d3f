import { AdminError, type AdminCommand } from '../admin-command.ts';

export const deactivateUser: AdminCommand<{ email: string }> = {
  name: 'deactivate-user',
  summary: "Deactivate a user and revoke all of that user's API keys and sessions",
  options: [{ flags: '--email <email>', description: "the user's email", required: true }],
  async run(ctx, options) {
    const user = await ctx.users.findByEmailWithPassword(options.email.toLowerCase());
    if (!user || user.organizationId !== ctx.organizationId) throw new AdminError(`No user with the email ${options.email}.`, 'List users with: npm run admin -- list-users');
    if (user.role === 'admin' && user.active && (await ctx.users.countActiveAdmins(ctx.organizationId)) <= 1) {
      throw new AdminError(`${user.email} is the last active administrator.`, 'Make another user an administrator first.');
    }
    await ctx.users.deactivate(ctx.organizationId, user.id, user.id);
    ctx.print(`Deactivated ${user.email}; their API keys and sessions are revoked.`);
  },
};
