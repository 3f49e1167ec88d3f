// Fault injection (INSTALLER.md "How it is tested"; issue 22): upgrades and restores stopped dead
// at every phase boundary (as by `kill -9` or a power loss, right after the journal recorded the
// point) and with a full disk at the file swap, each followed by `status` and `recover`, checking
// that the installation then runs one version with its data. The fake engine keeps its state
// across the "crash"; a few of these run for real, with the built installer, in test/end-to-end.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backupCommand } from '../commands/backup.ts';
import { recoverCommand } from '../commands/recover.ts';
import { restoreCommand } from '../commands/restore.ts';
import { statusCommand } from '../commands/status.ts';
import { upgradeCommand } from '../commands/upgrade.ts';
import { DATABASES } from '../install-dir/install-layout.ts';
import { createFaultInjector } from '../journal/fault-injection.ts';
import { JOURNAL_FILE, PHASES } from '../journal/journal.ts';
import { headsOf, InstallationScene } from '../testing/installation-scene.ts';

const OPERATOR_FILES: Record<string, string> = {
  'docker/Caddyfile': 'operator proxy\n',
  'docker/certs/cert.pem': 'operator cert\n',
  'compose.override.yaml': 'operator override\n',
};
const NEW_ITEM = [{ kind: 'finding-template', key: 'new-template', revision: 'r1' }];
const points = (operation: keyof typeof PHASES) =>
  PHASES[operation].flatMap((phase) => [`${operation}:${phase}:started`, `${operation}:${phase}:done`]);

let scene: InstallationScene;
beforeAll(() => {
  // Each "killed" run leaves its signal listeners behind, as a dead process would leave nothing.
  process.setMaxListeners(500);
});
afterEach(() => scene?.remove());

/** One version runs, answers healthy, and everything agrees on it; the data is `data`; nothing is unfinished. */
function expectConsistent(version: string, data: string): void {
  expect(existsSync(path.join(scene.home, JOURNAL_FILE))).toBe(false);
  expect(scene.runtime.runningVersion).toBe(version);
  expect(scene.runtime.appExited).toBe(false);
  expect(scene.installedVersion()).toBe(version);
  expect(scene.releaseVersion()).toBe(version);
  expect(scene.read('compose.yaml')).toBe(`name: service\n# ${version}\n`);
  const heads = headsOf(version);
  for (const db of DATABASES) {
    const state = scene.runtime.databases.get(db.name)!;
    expect(state.head, db.name).toBe(heads[db.key]);
    expect(state.data, db.name).toBe(data);
  }
  expect(scene.runtime.databases.get('service_control_plane')!.version).toBe(version);
  expect(scene.read('.env')).toBe(
    `# settings\nSERVICE_HOSTNAME=reports.example.com\nSERVICE_VERSION=${version}\nPOSTGRES_PASSWORD=secret\n`,
  );
  for (const [file, content] of Object.entries(OPERATOR_FILES)) expect(scene.read(file)).toBe(content);
  expect(readdirSync(scene.home).filter((n) => n.startsWith('.staging-'))).toEqual([]);
}

describe('an upgrade stopped dead at each phase boundary', () => {
  it.each(points('upgrade'))(
    '%s: refused to others, explained by status, finished or undone by recover',
    async (point) => {
      scene = new InstallationScene();
      await scene.install('1.2.0');
      const pkg = await scene.pkg('1.3.0', NEW_ITEM);
      // Yes to the library question, so the library phase runs too.
      const run = await scene.run(upgradeCommand, { yes: true }, { cwd: pkg, answers: [true], killAt: point });
      expect(run.outcome).toBe('killed');

      const again = await scene.run(upgradeCommand, { yes: true }, { cwd: pkg });
      expect(again.error?.message).toMatch(
        /^upgrade refused: an upgrade 1\.2\.0 -> 1\.3\.0 started \S+ did not finish/,
      );
      expect(again.screen).not.toContain('Already at');
      const backup = await scene.run(backupCommand, {});
      expect(backup.error?.message).toMatch(/^backup refused: an upgrade 1\.2\.0 -> 1\.3\.0/);
      expect(backup.error?.hint).toContain(`./install.sh recover --home ${scene.home}`);

      const status = await scene.run(statusCommand, {});
      expect(status.outcome).toBe('done');
      expect(status.screen).toContain('UNFINISHED: an upgrade 1.2.0 -> 1.3.0');
      expect(status.screen).toContain(`what to do         cd ${pkg} && ./install.sh recover --home ${scene.home}`);
      expect(status.screen).toContain(
        `Status: an unfinished upgrade; run \`./install.sh recover --home ${scene.home}\`.`,
      );

      const recover = await scene.run(recoverCommand, { yes: true }, { cwd: pkg });
      expect(recover.error).toBeNull();
      const forward = /^upgrade:(start:done|health|library)/.test(point);
      expectConsistent(forward ? '1.3.0' : '1.2.0', 'data written before the upgrade');
      expect(recover.screen).toMatch(
        new RegExp(`Recovered: ${scene.home} runs ${forward ? '1\\.3\\.0' : '1\\.2\\.0'}`),
      );

      const after = await scene.run(statusCommand, {});
      expect(after.screen).not.toContain('UNFINISHED');
      expect(after.screen).toMatch(
        /last upgrade\s+1\.2\.0 -> 1\.3\.0, .*did not finish; recover (went back|finished it)/,
      );
      if (!forward) {
        // Nothing in the way of the next attempt.
        const retry = await scene.run(upgradeCommand, { yes: true }, { cwd: pkg });
        expect(retry.error).toBeNull();
        expectConsistent('1.3.0', 'data written before the upgrade');
      }
    },
  );
});

describe('a restore stopped dead at each phase boundary', () => {
  it.each(points('restore'))('%s: recover goes back to the data before it, or finishes it', async (point) => {
    scene = new InstallationScene();
    await scene.install('1.2.0', 'data of the backup');
    const pkg12 = await scene.pkg('1.2.0');
    expect((await scene.run(backupCommand, {})).error).toBeNull();
    const backup = readdirSync(path.join(scene.home, 'backups')).find((n) => n.endsWith('.tar.gz'))!;
    expect((await scene.run(upgradeCommand, { yes: true }, { cwd: await scene.pkg('1.3.0') })).error).toBeNull();
    scene.write('data written after the upgrade');

    const run = await scene.run(
      restoreCommand,
      { backup: path.join(scene.home, 'backups', backup), yes: true },
      { cwd: pkg12, killAt: point },
    );
    expect(run.outcome).toBe('killed');
    const status = await scene.run(statusCommand, {});
    expect(status.screen).toContain('UNFINISHED: a restore of a backup of 1.2.0');
    const recover = await scene.run(recoverCommand, { yes: true });
    expect(recover.error).toBeNull();
    const forward = !/^restore:(verify|images|stage|stop|dumps|swap-databases:started)/.test(point);
    if (forward) expectConsistent('1.2.0', 'data of the backup');
    else expectConsistent('1.3.0', 'data written after the upgrade');
    // Databases the restore made for itself never outlive it.
    expect([...scene.runtime.databases.keys()].filter((n) => n.includes('_restore_'))).toEqual([]);
  });
});

describe('an upgrade whose new version changes the databases, then fails', () => {
  it('stops, names the backup it took with its age, and recover restores it, even when interrupted itself', async () => {
    scene = new InstallationScene();
    await scene.install('1.2.0');
    scene.runtime.startBehaviour.set('1.4.0', 'exit-after-migrating');
    const pkg = await scene.pkg('1.4.0');
    const run = await scene.run(upgradeCommand, { yes: true }, { cwd: pkg });
    expect(run.error?.message).toBe(
      'the upgrade to 1.4.0 failed after the new app started and changed the databases: the app exited with ' +
        'code 3. The app is stopped; nothing was rolled back yet',
    );
    expect(run.error?.hint).toMatch(
      new RegExp(
        `^Run \`\\./install\\.sh recover --home ${scene.home}\`: it restores the backup taken before the upgrade, ` +
          `${scene.home}/backups/service-1\\.2\\.0-\\d{8}T\\d{6}Z\\.tar\\.gz \\(taken \\d+ s ago, at \\S+\\), and starts 1\\.2\\.0 again$`,
      ),
    );
    expect(run.screen).toMatch(/Restore point: .*service-1\.2\.0-\d{8}T\d{6}Z\.tar\.gz \(taken \d+ s ago/);
    const status = await scene.run(statusCommand, {});
    expect(status.screen).toMatch(/state\s+1\.4\.0 changed the databases and does not work; recover stops it/);

    // The recovery is itself cut off in the middle of its restore; running it again finishes it.
    const first = await scene.run(recoverCommand, { yes: true }, { killAt: 'restore:dumps:done' });
    expect(first.outcome).toBe('killed');
    expect((await scene.run(statusCommand, {})).screen).toContain('UNFINISHED: a restore of a backup of 1.2.0');
    const second = await scene.run(recoverCommand, { yes: true });
    expect(second.error).toBeNull();
    expectConsistent('1.2.0', 'data written before the upgrade');
  });
});

describe('a full disk at the file swap', () => {
  it('is rolled back in the run itself; status and recover then find nothing unfinished', async () => {
    scene = new InstallationScene();
    await scene.install('1.2.0');
    const pkg = await scene.pkg('1.3.0');
    const run = await scene.run(
      upgradeCommand,
      { yes: true },
      { cwd: pkg, faults: createFaultInjector({ kind: 'enospc', point: 'upgrade:files:started' }) },
    );
    expect(run.error?.message).toMatch(
      /^the upgrade to 1\.3\.0 failed: replacing the files failed: ENOSPC: no space left on device.*\. 1\.2\.0 is running again; nothing else changed$/,
    );
    expectConsistent('1.2.0', 'data written before the upgrade');
    expect((await scene.run(statusCommand, {})).screen).not.toContain('UNFINISHED');
    expect((await scene.run(recoverCommand, { yes: true })).screen).toContain('Nothing to recover');
    expect((await scene.run(upgradeCommand, { yes: true }, { cwd: pkg })).error).toBeNull();
    expectConsistent('1.3.0', 'data written before the upgrade');
  });
});

describe('the library question', () => {
  it("states the counts from the two releases' manifests, defaults to no, and --yes does not answer it", async () => {
    scene = new InstallationScene();
    await scene.install('1.2.0');
    const pkg = await scene.pkg('1.3.0', NEW_ITEM);
    const run = await scene.run(upgradeCommand, { yes: true }, { cwd: pkg });
    expect(run.error).toBeNull();
    expect(run.screen).toContain(
      'Library: 1 new and 0 updated item(s); you will be asked whether to import them (default no)',
    );
    expect(run.screen).toContain('The global library of 1.3.0 has 1 new and 0 updated item(s).');
    expect(run.screen).toContain('Import them now (the service restarts)? -> no');
    expect(scene.runtime.calls).not.toContain('request globals import');
    expect(readFileSync(path.join(scene.home, 'library-manifest.json'), 'utf8')).toContain('new-template');
  });
});
