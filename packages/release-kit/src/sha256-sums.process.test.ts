import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareWithSums, formatSha256Sums, hashTree, parseSha256Sums, verifyTreeAgainstSums } from './sha256-sums.ts';
import { createTestFolder, type TestFolder } from './testing/test-folder.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('SHA256SUMS text', () => {
  it('is written sorted by path, as sha256sum writes it, and read back', () => {
    const text = formatSha256Sums([
      { path: 'z.txt', sha256: A },
      { path: 'images/app.tar', sha256: B },
    ]);
    expect(text).toBe(`${B}  images/app.tar\n${A}  z.txt\n`);
    expect([...parseSha256Sums(text)]).toEqual([
      ['images/app.tar', B],
      ['z.txt', A],
    ]);
  });

  it('also reads the binary marker', () => {
    expect(parseSha256Sums(`${A} *x.bin\n`).get('x.bin')).toBe(A);
  });

  it.each([
    [`${A}  ../etc/passwd\n`, 'not a plain relative path'],
    [`${A}  /etc/passwd\n`, 'not a plain relative path'],
    [`${A}  a//b\n`, 'not a plain relative path'],
    [`${A}  a\\b\n`, 'not a plain relative path'],
    [`${A}  ./a\n`, 'not a plain relative path'],
    [`${A.toUpperCase()}  a\n`, 'line 1 is not'],
    [`${A} a\n`, 'line 1 is not'],
    [`${A}  a\n\n`, 'line 2 is not'],
    [`${A}  a\n${B}  a\n`, 'lists a twice (line 2)'],
    ['', 'lists no file'],
  ])('refuses %j', (text, message) => {
    expect(() => parseSha256Sums(text)).toThrow(message);
  });

  it('refuses to write an unsafe path or a bad digest', () => {
    expect(() => formatSha256Sums([{ path: '../x', sha256: A }])).toThrow('not a plain relative path');
    expect(() => formatSha256Sums([{ path: 'x', sha256: 'abc' }])).toThrow('not a SHA-256');
    expect(() =>
      formatSha256Sums([
        { path: 'x', sha256: A },
        { path: 'x', sha256: B },
      ]),
    ).toThrow('listed twice');
  });
});

describe('compareWithSums', () => {
  it('names missing, extra and changed files', () => {
    const listed = new Map([
      ['a', A],
      ['b', B],
      ['c', A],
    ]);
    expect(
      compareWithSums(listed, [
        { path: 'a', sha256: A },
        { path: 'b', sha256: A },
        { path: 'd', sha256: B },
      ]),
    ).toEqual({
      ok: false,
      missing: ['c'],
      extra: ['d'],
      mismatched: ['b'],
    });
    expect(
      compareWithSums(listed, [
        { path: 'a', sha256: A },
        { path: 'b', sha256: B },
        { path: 'c', sha256: A },
      ]).ok,
    ).toBe(true);
  });
});

describe('a folder against its SHA256SUMS', () => {
  let folder: TestFolder;
  beforeEach(() => {
    folder = createTestFolder();
    folder.write({ 'pkg/a.txt': 'alpha\n', 'pkg/images/app.tar': 'tar bytes', 'pkg/library/x/y.md': '# y\n' });
  });
  afterEach(() => folder.remove());

  it('matches what sha256sum -c accepts', async () => {
    const sums = formatSha256Sums(await hashTree(folder.path('pkg')));
    writeFileSync(folder.path('pkg/SHA256SUMS'), sums);
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: folder.path('pkg') }).toString()).toBe(
      'a.txt: OK\nimages/app.tar: OK\nlibrary/x/y.md: OK\n',
    );
    expect((await verifyTreeAgainstSums(folder.path('pkg'), sums, { exclude: ['SHA256SUMS'] })).ok).toBe(true);
  });

  it('finds a changed, a missing, an extra file and a link', async () => {
    const sums = formatSha256Sums(await hashTree(folder.path('pkg')));
    folder.write({ 'pkg/a.txt': 'alpha!\n', 'pkg/extra.sh': 'rm -rf /\n' });
    (await import('node:fs')).rmSync(folder.path('pkg/library/x/y.md'));
    symlinkSync('/etc/passwd', folder.path('pkg/link'));
    expect(await verifyTreeAgainstSums(folder.path('pkg'), sums)).toEqual({
      ok: false,
      missing: ['library/x/y.md'],
      extra: ['extra.sh', 'link'],
      mismatched: ['a.txt'],
    });
  });
});
