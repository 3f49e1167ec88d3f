import { afterEach, describe, expect, it } from 'vitest';
import { InstallationScene } from '../testing/installation-scene.ts';
import { backupCommand } from './backup.ts';
import { statusCommand } from './status.ts';
import { upgradeCommand } from './upgrade.ts';

describe('status', () => {
  let scene: InstallationScene;
  afterEach(() => scene.remove());

  it('refuses a --home that is no directory with exit 1, saying what is expected', async () => {
    scene = new InstallationScene();
    for (const home of [scene.folder.path('nowhere'), scene.folder.path('file')]) {
      scene.folder.write({ file: 'x' });
      const run = await scene.run(statusCommand, { home });
      expect(run.error?.exitCode).toBe(1);
      expect(run.error?.message).toMatch(
        /(does not exist|is not a directory); --home names the installation directory \(the one holding compose\.yaml and \.env, \/opt\/service unless installed elsewhere\)$/,
      );
    }
  });

  it('shows a failed upgrade with its reason and log, and the leftovers with sizes and ages', async () => {
    scene = new InstallationScene();
    await scene.install('1.2.0');
    scene.runtime.startBehaviour.set('1.3.0', 'exit-before-migrating');
    expect((await scene.run(upgradeCommand, { yes: true }, { cwd: await scene.pkg('1.3.0') })).error).not.toBeNull();
    scene.folder.write({ 'opt-service/.previous-1.1.0/compose.yaml': 'x'.repeat(3000) });
    const status = await scene.run(statusCommand, {});
    expect(status.screen).toMatch(
      /last upgrade\s+1\.2\.0 -> 1\.3\.0, 60 s ago: FAILED and was rolled back \(1\.3\.0 did not start \(the app exited with code 3\); the databases were not changed\); log \S+installer-upgrade-\S+\.log/,
    );
    expect(status.screen).toMatch(
      /\.previous-1\.1\.0\/ 2\.93 KiB, \d+ (s|min) old: release files replaced by an upgrade or restore/,
    );
    expect(status.screen).toMatch(/Status: \d+ thing\(s\) to look at: .*the last upgrade failed\./);
    // A backup made afterwards is fine; the failed upgrade stays on record until the next one.
    expect((await scene.run(backupCommand, {})).error).toBeNull();
  });
});
