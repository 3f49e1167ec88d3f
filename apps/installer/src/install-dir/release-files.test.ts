import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatSha256Sums } from '@service/release-kit';
import { createTestFolder, type TestFolder } from '@service/release-kit/testing';
import { planFileSwap, releaseUnits, swapReleaseFiles } from './release-files.ts';

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

describe('swapReleaseFiles', () => {
  let folder: TestFolder;
  beforeEach(() => {
    folder = createTestFolder('swap-');
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
    });
  });
  afterEach(() => folder.remove());

  it(
    'swaps release files in, keeps the replaced ones, never touches the operator ' + 'files, and undoes it all',
    async () => {
      const plan = planFileSwap(
        ['compose.yaml', 'docker/Dockerfile', 'library'],
        ['compose.yaml', 'docker/Dockerfile', 'docker/old-only', 'library'],
      );
      expect(plan.remove).toEqual(['docker/old-only']);
      const swap = await swapReleaseFiles({
        home: folder.path('home'),
        packageDir: folder.path('pkg'),
        plan,
        previousDir: folder.path('home/.previous-1.2.0'),
        stagingName: '.staging-1.3.0',
      });
      const read = (p: string) => readFileSync(folder.path(p), 'utf8');
      expect(read('home/compose.yaml')).toBe('new compose');
      expect(read('home/docker/Dockerfile')).toBe('new dockerfile');
      expect(existsSync(folder.path('home/library/x.md'))).toBe(false);
      expect(read('home/library/y.md')).toBe('new library');
      expect(existsSync(folder.path('home/docker/old-only'))).toBe(false);
      expect(read('home/.previous-1.2.0/compose.yaml')).toBe('old compose');
      expect(read('home/.previous-1.2.0/docker/old-only')).toBe('retired');
      expect(read('home/.previous-1.2.0/library/x.md')).toBe('old library');
      for (const [file, content] of [
        ['home/docker/Caddyfile', 'operator proxy'],
        ['home/docker/certs/key.pem', 'operator key'],
        ['home/.env', 'SERVICE_VERSION=1.2.0\n'],
        ['home/compose.override.yaml', 'operator override'],
      ]) {
        expect(read(file!)).toBe(content);
      }
      expect(existsSync(folder.path('home/.staging-1.3.0'))).toBe(false);

      await swap.undo();
      expect(read('home/compose.yaml')).toBe('old compose');
      expect(read('home/docker/old-only')).toBe('retired');
      expect(read('home/library/x.md')).toBe('old library');
      expect(existsSync(folder.path('home/library/y.md'))).toBe(false);
    },
  );

  it('keeps an earlier previous-release folder and uses the next free name', async () => {
    folder.write({ 'home/.previous-1.2.0/keep': 'from an earlier run' });
    const swap = await swapReleaseFiles({
      home: folder.path('home'),
      packageDir: folder.path('pkg'),
      plan: planFileSwap(['compose.yaml'], []),
      previousDir: folder.path('home/.previous-1.2.0'),
      stagingName: '.s',
    });
    expect(swap.previousDir).toBe(folder.path('home/.previous-1.2.0-2'));
    expect(readFileSync(folder.path('home/.previous-1.2.0/keep'), 'utf8')).toBe('from an earlier run');
  });
});
