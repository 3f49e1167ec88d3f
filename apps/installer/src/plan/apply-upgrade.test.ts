import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { upgradeCommand } from '../commands/upgrade.ts';
import { JOURNAL_FILE } from '../journal/journal.ts';
import { InstallationScene } from '../testing/installation-scene.ts';

const ENV = (version: string) =>
  `# settings\nSERVICE_HOSTNAME=reports.example.com\nSERVICE_VERSION=${version}\nPOSTGRES_PASSWORD=secret\n`;

describe('upgrade', () => {
  let scene: InstallationScene;
  afterEach(() => scene.remove());

  async function prepared(behaviour?: 'exit-before-migrating' | 'exit-after-migrating') {
    scene = new InstallationScene();
    await scene.install('1.2.0');
    if (behaviour) scene.runtime.startBehaviour.set('1.3.0', behaviour);
    return scene.pkg('1.3.0');
  }

  it(
    'loads images first, backs up right before the first change, swaps files, changes only SERVICE_VERSION, ' +
      'recreates and waits for health',
    async () => {
      const pkg = await prepared();
      const run = await scene.run(upgradeCommand, { yes: true }, { cwd: pkg });
      expect(run.error).toBeNull();
      const order = scene.runtime.calls.filter((c) => /^(load|dump|up|stop)/.test(c));
      expect(order).toEqual([
        'load service/app:1.3.0',
        'dump service_control_plane',
        'dump service_shared',
        'dump service_tenant',
        'up',
      ]);
      expect(scene.read('.env')).toBe(ENV('1.3.0'));
      expect(scene.read('compose.yaml')).toBe('name: service\n# 1.3.0\n');
      expect(scene.read('.previous-1.2.0/compose.yaml')).toBe('name: service\n# 1.2.0\n');
      expect(scene.read('docker/Caddyfile')).toBe('operator proxy\n');
      expect(scene.runtime.runningVersion).toBe('1.3.0');
      expect(readdirSync(path.join(scene.home, 'backups')).filter((n) => n.endsWith('.tar.gz'))).toHaveLength(1);
      expect(run.screen).toMatch(
        /Upgraded .* from 1\.2\.0 to 1\.3\.0 in [\d.]+ s \(the service was unavailable for [\d.]+ s\)\. Restore point: .*service-1\.2\.0-\d{8}T\d{6}Z\.tar\.gz \(taken \d+ s ago, at \S+\)\./,
      );
      expect(existsSync(path.join(scene.home, JOURNAL_FILE))).toBe(false);
    },
  );

  it('changes nothing when an image cannot be loaded', async () => {
    const pkg = await prepared();
    scene.runtime.failOn.add('load');
    const run = await scene.run(upgradeCommand, { yes: true }, { cwd: pkg });
    expect(run.error?.message).toBe(
      'the upgrade to 1.3.0 failed: load service/app:1.3.0 failed (test); nothing was changed',
    );
    expect(scene.read('.env')).toBe(ENV('1.2.0'));
    expect(scene.read('compose.yaml')).toBe('name: service\n# 1.2.0\n');
    expect(scene.runtime.calls.filter((c) => /^(load|dump|up|stop)/.test(c))).toEqual(['load service/app:1.3.0']);
    expect(existsSync(path.join(scene.home, JOURNAL_FILE))).toBe(false);
  });

  it('puts the previous version back, byte for byte, when the new app fails before touching the databases', async () => {
    const pkg = await prepared('exit-before-migrating');
    const run = await scene.run(upgradeCommand, { yes: true }, { cwd: pkg });
    expect(run.error?.message).toBe(
      'the upgrade to 1.3.0 failed: 1.3.0 did not start (the app exited with code 3); ' +
        'the databases were not changed. 1.2.0 is running again; nothing else changed',
    );
    expect(scene.read('.env')).toBe(ENV('1.2.0'));
    expect(scene.read('compose.yaml')).toBe('name: service\n# 1.2.0\n');
    expect(existsSync(path.join(scene.home, '.previous-1.2.0'))).toBe(false);
    expect(scene.runtime.runningVersion).toBe('1.2.0');
    expect(run.screen).toMatch(/ok Roll back to 1\.2\.0: 1\.2\.0 runs again/);
  });

  it('stops and leaves the journal for recover when the new app changed the databases before failing', async () => {
    const pkg = await prepared('exit-after-migrating');
    const run = await scene.run(upgradeCommand, { yes: true }, { cwd: pkg });
    expect(run.error?.message).toMatch(/failed after the new app started and changed the databases/);
    expect(scene.runtime.calls).toContain('stop app');
    expect(scene.read('.env')).toContain('SERVICE_VERSION=1.3.0');
    expect(existsSync(path.join(scene.home, JOURNAL_FILE))).toBe(true);
  });

  it('reuses a backup from the last minutes when asked, and asks before going without one, even with --yes', async () => {
    const pkg = await prepared();
    const noBackup = await scene.run(upgradeCommand, { yes: true, skipBackup: true }, { cwd: pkg, answers: [] });
    expect(noBackup.error?.message).toBe('upgrade without a backup not confirmed; nothing was changed');
    expect(noBackup.screen).toContain('Upgrade WITHOUT a backup?');
    expect(scene.runtime.calls.filter((c) => /^(load|dump|up)/.test(c))).toEqual([]);

    const reuse = await scene.run(upgradeCommand, { yes: true, reuseBackup: true }, { cwd: pkg });
    expect(reuse.error).toBeNull();
    expect(reuse.screen).toContain('no backup of 1.2.0 from the last 15 minutes to reuse; a new one is taken');
  });
});
