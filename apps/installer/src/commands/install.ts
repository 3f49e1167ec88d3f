import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand, OperatorError } from '@service/cli-kit';
import { failures, runChecks } from '../checks/all-checks.ts';
import type { InstallerContext } from '../installer-context.ts';
import { applyInstall } from '../plan/apply-install.ts';
import { gatherFacts } from '../plan/gather-facts.ts';
import { printChecks } from '../plan/print-checks.ts';
import { HOME_OPTION, resolveHome, YES_OPTION } from './home-option.ts';
import { requirePackage } from './upgrade.ts';

const ADMIN_PASSWORD = 'SERVICE_ADMIN_PASSWORD';

export const installCommand = defineCommand<InstallerContext, { home: string; yes?: boolean; set: string[] }>({
  name: 'install',
  summary: 'Installs the release of this package into an empty installation directory',
  description:
    'Writes .env from .env.self-hosted.example with a generated database password; ' +
    '--set fills other settings (SERVICE_HOSTNAME, SERVICE_ADMIN_EMAIL, ...). The ' +
    'proxy configuration and docker/certs/ are yours afterwards.',
  options: [
    HOME_OPTION,
    YES_OPTION,
    { flags: '--set <KEY=value>', description: 'a setting for .env; repeatable', repeatable: true },
  ],
  examples: [
    './install.sh install --set SERVICE_HOSTNAME=reports.example.com --set SERVICE_ADMIN_EMAIL=it@example.com',
  ],
  async run(ctx, input) {
    const packageDir = requirePackage(ctx);
    const home = resolveHome(input.home, ctx.cwd);
    const settings = new Map<string, string>();
    for (const pair of input.set) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(pair);
      if (!match)
        throw new OperatorError(`--set ${pair} is not KEY=value`, {
          hint: 'Write it as --set SERVICE_HOSTNAME=reports.example.com.',
        });
      if (match[1] === 'SERVICE_VERSION')
        throw new OperatorError('SERVICE_VERSION is set by the installer', {
          hint: 'Leave it out; it is the package version.',
        });
      settings.set(match[1]!, match[2]!);
    }
    // Why taken out: the first administrator's password reaches the first start only; it is never
    // written to .env (nor kept in the app's container afterwards).
    const adminPassword = settings.get(ADMIN_PASSWORD) ?? null;
    settings.delete(ADMIN_PASSWORD);
    if (adminPassword !== null && adminPassword.length < 12)
      throw new OperatorError(`--set ${ADMIN_PASSWORD}: the password is shorter than 12 characters`, {
        hint: 'Give a longer one, or leave it out and one is generated and shown once.',
      });
    const session = await ctx.openSession('install', home, { createHome: true });
    const { reporter, runtime } = session;
    try {
      const facts = await gatherFacts({
        command: 'install',
        home,
        now: ctx.now(),
        runtime,
        config: ctx.config,
        reporter,
        packageDir,
        backupFile: null,
      });
      const checks = runChecks(facts);
      printChecks(reporter, checks);
      const failed = failures(checks);
      if (failed.length > 0)
        throw new OperatorError(`install refused, nothing was changed: ${failed[0]!.detail}`, {
          hint: failed[0]!.hint,
        });
      const manifest = facts.package!.verified!.manifest;
      if (!input.yes && !(await ctx.prompt.confirm(`Install ${manifest.version} into ${home}?`, false))) {
        throw new OperatorError('install not confirmed; nothing was changed', {
          hint: 'Run it again and answer y, or pass --yes.',
        });
      }
      const firstAdmin = {
        email: settings.get('SERVICE_ADMIN_EMAIL') || 'admin@localhost',
        password: adminPassword ?? generatePassword(),
        generated: adminPassword === null,
      };
      await applyInstall({
        home,
        packageDir,
        manifest,
        settings,
        adminPassword: firstAdmin.password,
        runtime,
        reporter,
        clock: ctx.clock,
        healthTimeoutMs: ctx.config.healthTimeoutMs,
        healthGraceMs: ctx.config.healthGraceMs,
      });
      if (firstAdmin.generated) await handOverPassword(ctx, home, firstAdmin.email, firstAdmin.password);
      reporter.result(
        `Installed ${manifest.version} in ${home}; the first administrator is ${firstAdmin.email}. Next: put the ` +
          `licence in ${home}/license/ and set LICENSE_FILE, then take a first backup with ` +
          `./install.sh backup --home ${home}`,
      );
    } finally {
      await session.close();
    }
  },
});

/** 24 random bytes as base64url: 32 characters, well above the 12 the service asks for. */
function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * A generated first password is shown once on a terminal, never logged; without a terminal (a
 * script) it is written once to a file only root can read, which the operator is told to delete.
 */
async function handOverPassword(ctx: InstallerContext, home: string, email: string, password: string): Promise<void> {
  if (ctx.output.isTTY) {
    ctx.output.write(
      `\n  First administrator: ${email}\n  Password (shown once, not stored anywhere): ${password}\n` +
        '  Sign in and change it.\n\n',
    );
    return;
  }
  const file = path.join(home, 'first-administrator-password.txt');
  await writeFile(file, `${email}\n${password}\n`, { mode: 0o600, flag: 'w' });
  ctx.output.write(
    `  The first administrator (${email}) has a generated password, written once to ${file} ` +
      '(readable by root only): read it, sign in, change it, and delete the file.\n',
  );
}
