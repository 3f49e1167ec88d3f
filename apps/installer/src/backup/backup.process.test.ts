import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestFolder, type TestFolder } from '@service/release-kit/testing';
import { readBackupManifest } from '../plan/gather-facts.ts';
import { FakeRuntime } from '../testing/fake-runtime.ts';
import { createReporter } from '../ui/reporter.ts';
import { LogFile } from '../ui/log-file.ts';
import { readArchive } from './backup-archive.ts';
import { createBackup } from './create-backup.ts';
import { verifyBackup } from './verify-backup.ts';

describe('backups', () => {
  let folder: TestFolder;
  let home: string;
  let runtime: FakeRuntime;
  let screen: string;
  const reporter = () =>
    createReporter({ write: (t) => (screen += t), isTTY: false }, new LogFile('backup', () => new Date()));

  beforeEach(() => {
    folder = createTestFolder('backup-');
    home = folder.path('home');
    screen = '';
    folder.write({
      'home/.env': 'SERVICE_VERSION=1.2.0\nPOSTGRES_PASSWORD=secret\n',
      'home/compose.yaml': 'services: {}\n',
      'home/docker/Caddyfile': 'proxy\n',
      'home/docker/certs/cert.pem': 'cert\n',
      'home/data/app/files/t1/evidence-a.png': Buffer.alloc(3000, 1),
      'home/data/app/files/t1/nested/evidence-b.png': Buffer.alloc(10, 2),
      [`home/data/app/files/${'long-name-'.repeat(12)}.png`]: 'long',
    });
    runtime = new FakeRuntime();
    runtime.sqlAnswers.set('knex_migrations', '20261125000000_head\n');
    runtime.sqlAnswers.set('pg_database_size', '8000\n');
  });
  afterEach(() => folder.remove());

  it('holds the dumps, the file storage and the configuration, verifies them, and tar reads it', async () => {
    const backup = await createBackup({
      home,
      version: '1.2.0',
      runtime,
      reporter: reporter(),
      now: new Date('2026-11-23T10:00:00Z'),
    });
    expect(path.basename(backup.file)).toBe('service-1.2.0-20261123T100000Z.tar.gz');
    expect(runtime.calls.filter((c) => c.startsWith('dump') || c.startsWith('list'))).toEqual([
      'dump service_control_plane',
      'dump service_shared',
      'dump service_tenant',
      'list control-plane.dump',
      'list shared.dump',
      'list tenant.dump',
    ]);
    expect(backup.manifest.parts.map((p) => [p.name, p.path, p.files])).toEqual([
      ['database controlPlane', 'databases/control-plane.dump', 1],
      ['database shared', 'databases/shared.dump', 1],
      ['database tenant', 'databases/tenant.dump', 1],
      ['file storage', 'files/', 3],
      ['.env', 'config/.env', 1],
      ['proxy configuration', 'config/docker/Caddyfile', 1],
      ['certificates', 'config/docker/certs/', 1],
    ]);
    expect(backup.manifest.schemaHeads).toEqual({
      controlPlane: '20261125000000_head',
      shared: '20261125000000_head',
      tenant: '20261125000000_head',
    });
    const listing = execFileSync('tar', ['tzf', backup.file]).toString().split('\n');
    expect(listing.slice(0, 3)).toEqual(['backup-manifest.json', 'SHA256SUMS', 'databases/control-plane.dump']);
    expect(listing).toContain(`files/${'long-name-'.repeat(12)}.png`);
    expect(listing).toContain('config/.env');
    expect((await readBackupManifest(backup.file)).version).toBe('1.2.0');
    expect(screen).toContain('ok Verify the backup: 9 files match their checksums; 3 dump entries listed');
    expect(screen).not.toContain('secret');

    const out = folder.path('out');
    await verifyBackup(backup.file, runtime, folder.path('work'), { extractTo: out });
    expect(readFileSync(path.join(out, 'files/t1/evidence-a.png')).equals(Buffer.alloc(3000, 1))).toBe(true);
    expect(readFileSync(path.join(out, 'config/.env'), 'utf8')).toContain('SERVICE_VERSION=1.2.0');
  });

  it('fails, keeping no file under a backup name, when a dump fails', async () => {
    runtime.failOn.add('dump service_shared');
    await expect(
      createBackup({ home, version: '1.2.0', runtime, reporter: reporter(), now: new Date() }),
    ).rejects.toThrow('dump service_shared failed');
    expect(execFileSync('ls', ['-A', path.join(home, 'backups')]).toString()).toBe('');
  });

  it('fails when a dump cannot be listed by pg_restore', async () => {
    runtime.listDump = async () => {
      throw new Error('pg_restore: error: input file does not appear to be a valid archive');
    };
    await expect(
      createBackup({ home, version: '1.2.0', runtime, reporter: reporter(), now: new Date() }),
    ).rejects.toThrow(/cannot be read by pg_restore/);
  });

  it('detects a changed file in the archive', async () => {
    const backup = await createBackup({ home, version: '1.2.0', runtime, reporter: reporter(), now: new Date() });
    const tarBytes = gunzipSync(readFileSync(backup.file));
    const at = tarBytes.indexOf(Buffer.from('proxy\n'));
    tarBytes.write('PROXY\n', at);
    writeFileSync(backup.file, gzipSync(tarBytes));
    await expect(verifyBackup(backup.file, runtime, folder.path('work'))).rejects.toThrow(
      /does not match its checksums: 1 changed \(config\/docker\/Caddyfile\)/,
    );
  });

  it('refuses links and paths that leave the folder, and a cut archive', async () => {
    folder.write({ 'evil/a.txt': 'x' });
    symlinkSync('/etc/passwd', folder.path('evil/link'));
    execFileSync('tar', ['czf', folder.path('link.tar.gz'), '-C', folder.path('evil'), 'a.txt', 'link']);
    await expect(readArchive(folder.path('link.tar.gz'), async (e) => void e.content.resume())).rejects.toThrow(
      /holds link, a SymbolicLink; a backup holds regular files only/,
    );
    execFileSync('tar', [
      'czf',
      folder.path('dots.tar.gz'),
      '-C',
      folder.path('evil'),
      '--transform',
      's,a.txt,../../a.txt,',
      '--absolute-names',
      'a.txt',
    ]);
    await expect(readArchive(folder.path('dots.tar.gz'), async (e) => void e.content.resume())).rejects.toThrow(
      /not a plain relative path/,
    );
    const backup = await createBackup({ home, version: '1.2.0', runtime, reporter: reporter(), now: new Date() });
    writeFileSync(backup.file, readFileSync(backup.file).subarray(0, 600));
    await expect(verifyBackup(backup.file, runtime, folder.path('work'))).rejects.toThrow(
      /is not a complete \.tar\.gz archive/,
    );
  });

  it('refuses to label data with a version the databases do not record, and removes parts a killed backup left', async () => {
    folder.write({ 'home/backups/.partial-service-1.2.0-20261122T100000Z/databases/x.dump': 'left by a kill -9' });
    runtime.sqlAnswers.set('from installation', '1.1.0\n');
    await expect(
      createBackup({ home, version: '1.2.0', runtime, reporter: reporter(), now: new Date('2026-11-23T10:00:00Z') }),
    ).rejects.toThrow(
      'the databases record version 1.1.0, but .env says SERVICE_VERSION=1.2.0; a backup would carry the wrong version',
    );
    expect(readdirSync(path.join(home, 'backups'))).toEqual([]);
  });
});
