import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestFolder, type TestFolder } from '@service/release-kit/testing';
import { parseEnvFile } from '../install-dir/env-file.ts';
import { fakeClock, FakeRuntime } from '../testing/fake-runtime.ts';
import { factsFor, manifestOf } from '../testing/facts.ts';
import { LogFile } from '../ui/log-file.ts';
import { createReporter } from '../ui/reporter.ts';
import { applyUpgrade } from './apply-upgrade.ts';
import { planUpgrade } from './plan-upgrade.ts';

const ENV =
  '# operator settings\nSERVICE_HOSTNAME=reports.example.com\nSERVICE_VERSION=1.2.0\nPOSTGRES_PASSWORD="k#y"\n';

describe('applyUpgrade', () => {
  let folder: TestFolder;
  let runtime: FakeRuntime;
  let screen: string;
  const home = () => folder.path('home');

  beforeEach(() => {
    folder = createTestFolder('apply-');
    folder.write({
      'home/.env': ENV,
      'home/compose.yaml': 'compose 1.2.0',
      'home/docker/Caddyfile': 'operator proxy',
      'pkg/compose.yaml': 'compose 1.3.0',
      'pkg/images/app.tar': 'image',
    });
    screen = '';
    runtime = new FakeRuntime();
    const old = manifestOf('1.2.0');
    for (const i of old.images) runtime.images.add(i.digest);
    runtime.runningVersion = '1.2.0';
    runtime.nextVersion = () =>
      parseEnvFile(readFileSync(folder.path('home/.env'), 'utf8')).values.get('SERVICE_VERSION') ?? null;
  });
  afterEach(() => folder.remove());

  async function upgrade() {
    const facts = factsFor('upgrade', '1.2.0', '1.3.0');
    const plan = planUpgrade(facts, {
      imagesPresent: { database: true, files: true, proxy: true },
      installedUnits: ['compose.yaml'],
      newUnits: ['compose.yaml'],
      library: null,
      healthTimeoutMs: 20_000,
      healthGraceMs: 3_000,
    });
    if (plan.kind !== 'upgrade') throw new Error(plan.kind);
    return applyUpgrade({
      home: home(),
      packageDir: folder.path('pkg'),
      manifest: manifestOf('1.3.0'),
      installedManifest: manifestOf('1.2.0'),
      plan,
      runtime,
      reporter: createReporter({ write: (t) => (screen += t), isTTY: false }, new LogFile('upgrade', () => new Date())),
      clock: fakeClock(),
      healthTimeoutMs: 20_000,
      healthGraceMs: 3_000,
      latestBackup: facts.installation.backups[0]!,
    });
  }

  it('loads images first, swaps files, changes only SERVICE_VERSION, recreates and waits for health', async () => {
    const outcome = await upgrade();
    expect(runtime.calls).toEqual(['load service/app:1.3.0', 'up']);
    expect(readFileSync(folder.path('home/.env'), 'utf8')).toBe(
      ENV.replace('SERVICE_VERSION=1.2.0', 'SERVICE_VERSION=1.3.0'),
    );
    expect(readFileSync(folder.path('home/compose.yaml'), 'utf8')).toBe('compose 1.3.0');
    expect(readFileSync(folder.path('home/.previous-1.2.0/compose.yaml'), 'utf8')).toBe('compose 1.2.0');
    expect(readFileSync(folder.path('home/docker/Caddyfile'), 'utf8')).toBe('operator proxy');
    expect(runtime.runningVersion).toBe('1.3.0');
    expect(outcome.unavailableMs).toBeGreaterThanOrEqual(0);
  });

  it('changes nothing when an image cannot be loaded', async () => {
    runtime.failOn.add('load');
    await expect(upgrade()).rejects.toThrow('load service/app:1.3.0 failed');
    expect(readFileSync(folder.path('home/.env'), 'utf8')).toBe(ENV);
    expect(readFileSync(folder.path('home/compose.yaml'), 'utf8')).toBe('compose 1.2.0');
    expect(runtime.calls).toEqual(['load service/app:1.3.0']);
  });

  it(
    'puts the previous version back, byte for byte, when the new app fails to start ' +
      'without touching the databases',
    async () => {
      const up = runtime.up.bind(runtime);
      runtime.up = async () => {
        await up();
        runtime.appExited = runtime.runningVersion === '1.3.0';
      };
      runtime.sqlAnswers.set('from installation', '1.2.0\n');
      let head = 0;
      runtime.sql = async (database, statement) => {
        runtime.calls.push(`sql ${database}`);
        if (statement.includes('from installation')) return '1.2.0\n';
        return `${['cp1', 'sh1', 'tn1'][head++ % 3]}\n`;
      };
      await expect(upgrade()).rejects.toThrow(
        'the upgrade to 1.3.0 failed: 1.3.0 did not start (the app exited with code 3); ' +
          'the databases were not changed. 1.2.0 is running again; nothing else changed',
      );
      expect(readFileSync(folder.path('home/.env'), 'utf8')).toBe(ENV);
      expect(readFileSync(folder.path('home/compose.yaml'), 'utf8')).toBe('compose 1.2.0');
      expect(runtime.runningVersion).toBe('1.2.0');
      expect(screen).toMatch(/ok Roll back to 1\.2\.0: 1\.2\.0 runs again/);
    },
  );

  it('stops and prints the restore command when the new app changed the databases before failing', async () => {
    runtime.up = async () => {
      runtime.calls.push('up');
      runtime.runningVersion = null;
      runtime.appExited = true;
    };
    runtime.sqlAnswers.set('from installation', '1.3.0\n');
    const error = (await upgrade().then(
      () => null,
      (e: unknown) => e,
    )) as { message: string; hint: string };
    expect(error.message).toMatch(
      /failed after the new app started and changed the databases: the app exited with code 3\. The app is stopped/,
    );
    expect(error.hint).toBe(
      'Restore the backup taken before the upgrade: from the directory of ' +
        'service-1.2.0-offline.tar.gz run `./install.sh restore ' +
        '/opt/service/backups/service-1.2.0-20261123T080000Z.tar.gz --home ' +
        home() +
        '`',
    );
    expect(runtime.calls).toContain('stop app');
    expect(readFileSync(folder.path('home/.env'), 'utf8')).toContain('SERVICE_VERSION=1.3.0');
    expect(existsSync(folder.path('home/.previous-1.2.0/compose.yaml'))).toBe(true);
  });
});
