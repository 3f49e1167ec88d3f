// `npm run admin -- <command>` as an operator runs it, against real databases.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '@service/auth';
import { createKnex } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let databases: TestDatabases;

beforeAll(async () => {
  databases = await createTestDatabases();
});
afterAll(async () => {
  await databases.drop();
});

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
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
        },
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run admin', () => {
  it('creates users, resets passwords, lists and deactivates them', async () => {
    const created = await admin('create-user', '--email', 'Tess@Example.com', '--name', 'Tess Tester', '--role', 'member');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created member tess@example\.com \([0-9a-f-]{36}\)\.\nPassword: \S{20,}\n$/);
    const generated = /Password: (\S+)/.exec(created.stdout)![1]!;

    const cp = createKnex(databases.urls.controlPlane, 1);
    try {
      const row = await cp('users').where({ email: 'tess@example.com' }).first();
      expect(await verifyPassword(generated, row.password_hash)).toBe(true);

      const reset = await admin('reset-password', '--email', 'tess@example.com', '--password', 'a-brand-new-password');
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
  }, 60_000);

  it('explains mistakes in one line with the next step, and exits 1', async () => {
    const role = await admin('create-user', '--email', 'x@example.com', '--name', 'X', '--role', 'boss');
    expect(role.code).toBe(1);
    expect(role.stderr).toMatch(/admin: Unknown role "boss"\.\n\s+Use one of: admin, member, viewer, external\./);
    const taken = await admin('create-user', '--email', 'owner@example.com', '--name', 'Again', '--role', 'member');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/already exists[\s\S]*reset-password --email owner@example\.com/);
    const nobody = await admin('reset-password', '--email', 'ghost@example.com');
    expect(nobody.stderr).toMatch(/No user with the email ghost@example\.com/);
    const last = await admin('deactivate-user', '--email', 'owner@example.com');
    expect(last.stderr).toMatch(/last active administrator/);
  }, 60_000);
});
