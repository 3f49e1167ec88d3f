// `npm run admin -- <command>` as an operator runs it, against real databases.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '@service/auth';
import { createKnex } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';
import { processBudgetMs } from '@service/test-lanes';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let databases: TestDatabases;

beforeAll(async () => {
  databases = await createTestDatabases();
});
afterAll(async () => {
  await databases.drop();
});

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return adminWithEnv({}, ...args);
}

function adminWithEnv(
  extraEnv: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'apps/api/src/admin/main.ts', ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          CONTROL_PLANE_DATABASE_URL: databases.urls.controlPlane,
          SHARED_DATABASE_URL: databases.urls.shared,
          TENANT_DATABASE_URL: databases.urls.tenant,
          SERVICE_ADMIN_EMAIL: 'owner@example.com',
          SERVICE_ADMIN_PASSWORD: 'owner-password-1',
          ...extraEnv,
        },
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run admin', () => {
  it(
    'creates users, resets passwords, lists and deactivates them',
    async () => {
      const created = await admin(
        'create-user',
        '--email',
        'Tess@Example.com',
        '--name',
        'Tess Tester',
        '--role',
        'member',
      );
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(/^Created member tess@example\.com \([0-9a-f-]{36}\)\.\nPassword: \S{20,}\n$/);
      const generated = /Password: (\S+)/.exec(created.stdout)![1]!;

      const cp = createKnex(databases.urls.controlPlane, 1);
      try {
        const row = await cp('users').where({ email: 'tess@example.com' }).first();
        expect(await verifyPassword(generated, row.password_hash)).toBe(true);

        const reset = await admin(
          'reset-password',
          '--email',
          'tess@example.com',
          '--password',
          'a-brand-new-password',
        );
        expect(reset.code).toBe(0);
        const after = await cp('users').where({ email: 'tess@example.com' }).first();
        expect(await verifyPassword('a-brand-new-password', after.password_hash)).toBe(true);

        const list = await admin('list-users');
        expect(list.stdout).toMatch(/owner@example\.com\s+admin\s+active/);
        expect(list.stdout).toMatch(/tess@example\.com\s+member\s+active\s+Tess Tester/);

        const off = await admin('deactivate-user', '--email', 'tess@example.com');
        expect(off.code).toBe(0);
        expect((await cp('users').where({ email: 'tess@example.com' }).first()).active).toBe(false);
      } finally {
        await cp.destroy();
      }
    },
    processBudgetMs(4),
  );

  it(
    'explains mistakes in one line with the next step, and exits 1',
    async () => {
      const role = await admin('create-user', '--email', 'x@example.com', '--name', 'X', '--role', 'boss');
      expect(role.code).toBe(1);
      expect(role.stderr).toBe('error: Unknown role "boss".\nhint: Use one of: admin, member, viewer, external.\n');
      const taken = await admin('create-user', '--email', 'owner@example.com', '--name', 'Again', '--role', 'member');
      expect(taken.code).toBe(1);
      expect(taken.stderr).toMatch(/already exists[\s\S]*reset-password --email owner@example\.com/);
      const nobody = await admin('reset-password', '--email', 'ghost@example.com');
      expect(nobody.stderr).toMatch(/No user with the email ghost@example\.com/);
      const last = await admin('deactivate-user', '--email', 'owner@example.com');
      expect(last.stderr).toMatch(/last active administrator/);
      const missing = await admin('create-user', '--email', 'y@example.com');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toBe(
        'error: create-user needs --name <name>\nhint: Run `npm run admin -- create-user --help` for its options.\n',
      );
    },
    processBudgetMs(5),
  );

  it(
    'answers a bad LICENSE_FILE or setting with one line and a hint, never a stack trace',
    async () => {
      const license = await adminWithEnv({ LICENSE_FILE: '/nonexistent/acme.license' }, 'list-users');
      expect(license.code).toBe(1);
      expect(license.stderr).toBe(
        'error: Cannot read the licence file /nonexistent/acme.license (LICENSE_FILE); ' +
          'check the path and its permissions.\nhint: Point LICENSE_FILE at the licence ' +
          'file the vendor sent, or remove the setting.\n',
      );
      const port = await adminWithEnv({ DB_POOL_MAX: 'many' }, 'list-users');
      expect(port.code).toBe(1);
      expect(port.stderr).toMatch(
        /^error: Invalid setting DB_POOL_MAX: [^\n]+\nhint: Correct DB_POOL_MAX in \.env or the environment\.\n$/,
      );
    },
    processBudgetMs(2),
  );

  it(
    'lists findings whose severity contradicts their score, and changes nothing',
    async () => {
      // The first command prepared the databases; this finding predates the severity reason.
      await admin('list-users');
      const tenant = createKnex(databases.urls.tenant, 1);
      try {
        const [client] = await tenant('clients').insert({ name: 'Old Corp' }).returning('id');
        const [project] = await tenant('projects').insert({ client_id: client.id, name: 'Old test' }).returning('id');
        const cvss = [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', baseScore: 5.3 }];
        const [old] = await tenant('findings')
          .insert({ project_id: project.id, title: 'Rated high in 2024', severity: 'high', cvss: JSON.stringify(cvss) })
          .returning('id');
        await tenant('findings').insert({
          project_id: project.id,
          title: 'Explained',
          severity: 'high',
          cvss: JSON.stringify(cvss),
          severity_reason: 'Customer data.',
        });
        const result = await admin('check-severities');
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(result.stdout).toBe(
          `${old.id}  high, but the CVSS 3.1 base score 5.3 is medium  Old Corp / Old test: Rated high in 2024\n` +
            '1 finding(s) contradict their score; set the right severity or CVSS, or a severityReason ' +
            '(PATCH /rest/v1/findings/{id}).\n',
        );
        expect((await tenant('findings').where({ id: old.id }).first()).severity).toBe('high');
      } finally {
        await tenant.destroy();
      }
    },
    processBudgetMs(2),
  );

  it(
    'asks the service to import the global library at its next start',
    async () => {
      const result = await admin('request-globals-import');
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Library import requested at \S+; it runs when the service next starts\.\n$/);
      const cp = createKnex(databases.urls.controlPlane, 1);
      try {
        expect((await cp('installation').where({ id: 1 }).first()).globals_import_requested_at).not.toBeNull();
      } finally {
        await cp.destroy();
      }
    },
    processBudgetMs(1),
  );

  it(
    'lists its commands with --help, without opening a database',
    async () => {
      const help = await adminWithEnv({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(
        /create-user[\s\S]*reset-password[\s\S]*list-users[\s\S]*deactivate-user[\s\S]*request-globals-import/,
      );
    },
    processBudgetMs(1),
  );
});
