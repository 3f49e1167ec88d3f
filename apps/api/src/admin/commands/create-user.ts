import { EmailTakenError, generatePassword, MIN_PASSWORD_LENGTH, ROLES, type Role } from '@service/auth';
import { defineCommand, OperatorError } from '@service/cli-kit';
import type { AdminContext } from '../admin-context.ts';

export const createUser = defineCommand<
  AdminContext,
  { email: string; name: string; role: string; password?: string; organization?: string }
>({
  name: 'create-user',
  summary: 'Create a user (prints a generated password when none is given)',
  options: [
    { flags: '--email <email>', description: 'email address, used to sign in', required: true },
    { flags: '--name <name>', description: 'display name', required: true },
    { flags: '--role <role>', description: `one of ${ROLES.join(', ')}`, required: true },
    { flags: '--password <password>', description: `at least ${MIN_PASSWORD_LENGTH} characters; omit to generate one` },
    {
      flags: '--organization <id>',
      description: 'hosted: the organization (see list-organizations); self-hosted has one',
    },
  ],
  examples: ['npm run admin -- create-user --email tess@example.com --name "Tess" --role member'],
  async run(ctx, options) {
    if (!(ROLES as readonly string[]).includes(options.role))
      throw new OperatorError(`Unknown role "${options.role}".`, { hint: `Use one of: ${ROLES.join(', ')}.` });
    if (options.password !== undefined && options.password.length < MIN_PASSWORD_LENGTH) {
      throw new OperatorError(`The password is shorter than ${MIN_PASSWORD_LENGTH} characters.`, {
        hint: 'Omit --password to have one generated.',
      });
    }
    const organizationId = await ctx.organizationFor(options.organization);
    const password = options.password ?? generatePassword();
    try {
      const user = await ctx.users.create({
        organizationId,
        email: options.email.toLowerCase(),
        name: options.name,
        role: options.role as Role,
        password,
      });
      ctx.print(`Created ${user.role} ${user.email} (${user.id}).`);
      if (!options.password) ctx.print(`Password: ${password}`);
    } catch (err) {
      if (err instanceof EmailTakenError)
        throw new OperatorError(err.message, {
          hint:
            `To set a new password: npm run admin -- reset-password --email ${options.email}` +
            (options.organization ? ` --organization ${options.organization}` : ''),
        });
      throw err;
    }
  },
});
