import { EmailTakenError, generatePassword, MIN_PASSWORD_LENGTH, ROLES, type Role } from '@service/auth';
import { AdminError, type AdminCommand } from '../admin-command.ts';

export const createUser: AdminCommand<{ email: string; name: string; role: string; password?: string }> = {
  name: 'create-user',
  summary: 'Create a user (prints a generated password when none is given)',
  options: [
    { flags: '--email <email>', description: 'email address, used to sign in', required: true },
    { flags: '--name <name>', description: 'display name', required: true },
    { flags: '--role <role>', description: `one of ${ROLES.join(', ')}`, required: true },
    { flags: '--password <password>', description: `at least ${MIN_PASSWORD_LENGTH} characters; omit to generate one` },
  ],
  async run(ctx, options) {
    if (!(ROLES as readonly string[]).includes(options.role)) throw new AdminError(`Unknown role "${options.role}".`, `Use one of: ${ROLES.join(', ')}.`);
    if (options.password !== undefined && options.password.length < MIN_PASSWORD_LENGTH) {
      throw new AdminError(`The password is shorter than ${MIN_PASSWORD_LENGTH} characters.`);
    }
    const password = options.password ?? generatePassword();
    try {
      const user = await ctx.users.create({ organizationId: ctx.organizationId, email: options.email.toLowerCase(), name: options.name, role: options.role as Role, password });
      ctx.print(`Created ${user.role} ${user.email} (${user.id}).`);
      if (!options.password) ctx.print(`Password: ${password}`);
    } catch (err) {
      if (err instanceof EmailTakenError) throw new AdminError(err.message, `To set a new password: npm run admin -- reset-password --email ${options.email}`);
      throw err;
    }
  },
};
