import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatSha256Sums } from '@service/release-kit';
import { createTestFolder, type TestFolder } from '@service/release-kit/testing';
import { createFaultInjector } from '../journal/fault-injection.ts';
import {
  applySwap,
  planFileSwap,
  planSwapRecord,
  releaseUnits,
  stageReleaseFiles,
  swapReleaseFiles,
  undoSwap,
} from './release-files.ts';

const sha = 'a'.repeat(64);
const sums = (files: string[]) => formatSha256Sums(files.map((path) => ({ path, sha256: sha })));

describe('releaseUnits', () => {
  it(
    'lists release files, whole installer/ and library/ folders, the signatures; ' +
      'never images or the operator files',
    () => {
      const units = releaseUnits(
        sums([
          'compose.yaml',
          'docker/Dockerfile',
          'docker/Caddyfile',
          'docker/certs/README.md',
          'images/app.tar',
          'installer/installer.mjs',
          'library/a/b.md',
          'library/c.md',
          'manifest.json',
        ]),
      );
      expect(units).toEqual([
        'SHA256SUMS',
        'SHA256SUMS.sig',
        'compose.yaml',
        'docker/Dockerfile',
        'installer',
        'library',
        'manifest.json',
        'manifest.json.sig',
      ]);
    },
  );
});

describe('the release-file swap', () => {
  let folder: TestFolder;
  const home = () => folder.path('home');
  const read = (p: string) => readFileSync(folder.path(p), 'utf8');
  const plan = planFileSwap(
    ['compose.yaml', 'docker/Dockerfile', 'library', 'install.sh'],
    ['compose.yaml', 'docker/Dockerfile', 'docker/old-only', 'library'],
  );
  const record = () =>
    planSwapRecord(home(), plan, { previousDir: path.join(home(), '.previous-1.2.0'), stagingName: '.staging-1.3.0' });

  beforeEach(() => {
    folder = createTestFolder('swap-', { inMemory: true });
    folder.write({
      'home/compose.yaml': 'old compose',
      'home/docker/Dockerfile': 'old dockerfile',
      'home/docker/old-only': 'retired',
      'home/docker/Caddyfile': 'operator proxy',
      'home/docker/certs/key.pem': 'operator key',
      'home/.env': 'SERVICE_VERSION=1.2.0\n',
      'home/compose.override.yaml': 'operator override',
      'home/library/x.md': 'old library',
      'pkg/compose.yaml': 'new compose',
      'pkg/docker/Dockerfile': 'new dockerfile',
      'pkg/library/y.md': 'new library',
      'pkg/install.sh': 'new launcher',
    });
  });
  afterEach(() => folder.remove());

  function expectOld(): void {
    expect(read('home/compose.yaml')).toBe('old compose');
    expect(read('home/docker/Dockerfile')).toBe('old dockerfile');
    expect(read('home/docker/old-only')).toBe('retired');
    expect(read('home/library/x.md')).toBe('old library');
    expect(existsSync(folder.path('home/library/y.md'))).toBe(false);
    expect(existsSync(folder.path('home/install.sh'))).toBe(false);
    expect(existsSync(folder.path('home/.staging-1.3.0'))).toBe(false);
    expect(existsSync(folder.path('home/.previous-1.2.0'))).toBe(false);
  }
  function expectNew(): void {
    expect(read('home/compose.yaml')).toBe('new compose');
    expect(read('home/docker/Dockerfile')).toBe('new dockerfile');
    expect(existsSync(folder.path('home/docker/old-only'))).toBe(false);
    expect(existsSync(folder.path('home/library/x.md'))).toBe(false);
    expect(read('home/library/y.md')).toBe('new library');
    expect(read('home/install.sh')).toBe('new launcher');
    expect(read('home/.previous-1.2.0/compose.yaml')).toBe('old compose');
    expect(read('home/.previous-1.2.0/docker/old-only')).toBe('retired');
    expect(read('home/.previous-1.2.0/library/x.md')).toBe('old library');
    expect(existsSync(folder.path('home/.staging-1.3.0'))).toBe(false);
  }
  function expectOperatorFilesUntouched(): void {
    for (const [file, content] of [
      ['home/docker/Caddyfile', 'operator proxy'],
      ['home/docker/certs/key.pem', 'operator key'],
      ['home/.env', 'SERVICE_VERSION=1.2.0\n'],
      ['home/compose.override.yaml', 'operator override'],
    ])
      expect(read(file!)).toBe(content);
  }

  it('records what existed, stages, swaps in by renames, keeps the replaced ones, and undoes it all', async () => {
    const swap = record();
    expect(swap).toEqual({
      staging: '.staging-1.3.0',
      previousDir: '.previous-1.2.0',
      replace: [
        { unit: 'compose.yaml', existed: true },
        { unit: 'docker/Dockerfile', existed: true },
        { unit: 'library', existed: true },
        { unit: 'install.sh', existed: false },
      ],
      remove: ['docker/old-only'],
    });
    await stageReleaseFiles(home(), folder.path('pkg'), swap);
    await applySwap(home(), swap);
    expectNew();
    expectOperatorFilesUntouched();
    await undoSwap(home(), swap);
    expectOld();
    expectOperatorFilesUntouched();
  });

  // A crash can stop the swap after any rename: the states it can leave, made by hand.
  const states: Array<[string, (swap: ReturnType<typeof record>) => void]> = [
    ['staged only', () => {}],
    [
      'the first unit moved aside, the new one not yet in',
      () => renameSync(folder.path('home/compose.yaml'), folder.path('home/.previous-1.2.0/compose.yaml')),
    ],
    [
      'the first unit swapped',
      () => {
        renameSync(folder.path('home/compose.yaml'), folder.path('home/.previous-1.2.0/compose.yaml'));
        renameSync(folder.path('home/.staging-1.3.0/compose.yaml'), folder.path('home/compose.yaml'));
      },
    ],
    [
      'a unit the installation never had moved in',
      () => renameSync(folder.path('home/.staging-1.3.0/install.sh'), folder.path('home/install.sh')),
    ],
  ];
  it.each(states)(
    'after a crash with %s, undo restores the old release and apply finishes the new one',
    async (_what, crash) => {
      const swap = record();
      const stopAfter = () => {
        mkdirSync(folder.path('home/.previous-1.2.0'), { recursive: true });
        crash(swap);
      };
      await stageReleaseFiles(home(), folder.path('pkg'), swap);
      stopAfter();
      await undoSwap(home(), swap);
      await undoSwap(home(), swap);
      expectOld();
      await stageReleaseFiles(home(), folder.path('pkg'), swap);
      stopAfter();
      await applySwap(home(), swap);
      await applySwap(home(), swap);
      expectNew();
      expectOperatorFilesUntouched();
    },
  );

  it('keeps an earlier previous-release folder and uses the next free name', async () => {
    folder.write({ 'home/.previous-1.2.0/keep': 'from an earlier run' });
    const swap = await swapReleaseFiles({
      home: home(),
      packageDir: folder.path('pkg'),
      plan: planFileSwap(['compose.yaml'], []),
      previousDir: folder.path('home/.previous-1.2.0'),
      stagingName: '.s',
    });
    expect(swap.previousDir).toBe('.previous-1.2.0-2');
    expect(readFileSync(folder.path('home/.previous-1.2.0/keep'), 'utf8')).toBe('from an earlier run');
  });

  it('stops staging at a full disk, leaving the installation as it was', async () => {
    const swap = record();
    const faults = createFaultInjector({ kind: 'enospc', point: 'x:y:started' });
    await faults.reached('x:y:started');
    await expect(stageReleaseFiles(home(), folder.path('pkg'), swap, faults)).rejects.toMatchObject({ code: 'ENOSPC' });
    await undoSwap(home(), swap);
    expectOld();
  });
});
