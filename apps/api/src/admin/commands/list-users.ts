import { defineCommand } from '@service/cli-kit';
import type { AdminContext } from '../admin-context.ts';

export const listUsers = defineCommand<AdminContext, { organization?: string }>({
  name: 'list-users',
  summary: 'List the users of the organization',
  options: [
    {
      flags: '--organization <id>',
      description: 'hosted: the organization (see list-organizations); self-hosted has one',
    },
  ],
  examples: ['npm run admin -- list-users'],
  async run(ctx, options) {
    const users = await ctx.users.list(await ctx.organizationFor(options.organization));
    for (const u of users)
      ctx.print([u.email.padEnd(32), u.role.padEnd(9), u.active ? 'active' : 'deactivated', u.name].join('  '));
    ctx.print(`${users.length} user(s).`);
  },
});
