import { defineCommand } from '@service/cli-kit';
import type { AdminContext } from '../admin-context.ts';

export const listUsers = defineCommand<AdminContext, Record<string, never>>({
  name: 'list-users',
  summary: 'List the users of the organization',
  examples: ['npm run admin -- list-users'],
  async run(ctx) {
    const users = await ctx.users.list(ctx.organizationId);
    for (const u of users) ctx.print([u.email.padEnd(32), u.role.padEnd(9), u.active ? 'active' : 'deactivated', u.name].join('  '));
    ctx.print(`${users.length} user(s).`);
  },
});
