import { generatePassword, MIN_PASSWORD_LENGTH } from '@service/auth';
import { defineCommand, OperatorError } from '@service/cli-kit';
import type { AdminContext } from '../admin-context.ts';

export const resetPassword = defineCommand<AdminContext, { email: string; password?: string; organization?: string }>({
  name: 'reset-password',
  summary: "Set a user's password (prints a generated one when none is given)",
  options: [
    { flags: '--email <email>', description: "the user's email", required: true },
    {
      flags: '--organization <id>',
      description: 'hosted: the organization (see list-organizations); self-hosted has one',
    },
    { flags: '--password <password>', description: `at least ${MIN_PASSWORD_LENGTH} characters; omit to generate one` },
  ],
  examples: ['npm run admin -- reset-password --email admin@localhost'],
  async run(ctx, options) {
    if (options.password !== undefined && options.password.length < MIN_PASSWORD_LENGTH) {
      throw new OperatorError(`The password is shorter than ${MIN_PASSWORD_LENGTH} characters.`, {
        hint: 'Omit --password to have one generated.',
      });
    }
    // E-mail addresses are unique per organization: the organization and the email name the user.
    const user = await ctx.users.findByEmail(
      await ctx.organizationFor(options.organization),
      options.email.toLowerCase(),
    );
    if (!user)
      throw new OperatorError(`No user with the email ${options.email}.`, {
        hint: 'List users with: npm run admin -- list-users',
      });
    const password = options.password ?? generatePassword();
    await ctx.users.setPassword(user.id, password);
    ctx.print(`Password of ${user.email} changed.`);
    if (!options.password) ctx.print(`Password: ${password}`);
    if (!user.active) ctx.print('Note: this user is deactivated and still cannot sign in.');
  },
});
