import { readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestFolder, type TestFolder } from '@service/release-kit/testing';
import { parseEnvFile, replaceFileAtomically, setEnvValue } from './env-file.ts';

describe('parseEnvFile', () => {
  it('reads bare, quoted and exported values, comments and blank lines; a later line wins', () => {
    const env = parseEnvFile('# comment\n\nA=1\nexport B = two words # note\nC="x\\ny"\nD=\'$literal\'\nA=3\r\nE=\n');
    expect(Object.fromEntries(env.values)).toEqual({ A: '3', B: 'two words', C: 'x\ny', D: '$literal', E: '' });
    expect(env.problems).toEqual([]);
  });

  it('names every line it cannot read', () => {
    expect(parseEnvFile('OK=1\nnot a setting\n1BAD=x\nQ="open\n').problems).toEqual([
      { line: 2, message: 'is not KEY=value' },
      { line: 3, message: 'has the invalid name "1BAD" (letters, digits and _ only)' },
      { line: 4, message: 'has an unterminated quote in the value of Q' },
    ]);
  });
});

describe('setEnvValue', () => {
  it('changes only the value of that one setting, keeping every other byte', () => {
    const before =
      '# Settings\r\nSERVICE_HOSTNAME=reports.example.com\r\nexport SERVICE_VERSION = ' +
      '1.2.0\r\nPOSTGRES_PASSWORD="p#ss word"\r\n';
    const after = setEnvValue(before, 'SERVICE_VERSION', '1.3.0');
    expect(after).toBe(
      '# Settings\r\nSERVICE_HOSTNAME=reports.example.com\r\nexport SERVICE_VERSION = ' +
        '1.3.0\r\nPOSTGRES_PASSWORD="p#ss word"\r\n',
    );
  });

  it('does not touch a setting whose name only ends the same way, nor a comment', () => {
    const before = 'MY_SERVICE_VERSION=9\n# SERVICE_VERSION=0.0.1\nSERVICE_VERSION=1.2.0\n';
    expect(setEnvValue(before, 'SERVICE_VERSION', '1.3.0')).toBe(
      'MY_SERVICE_VERSION=9\n# SERVICE_VERSION=0.0.1\nSERVICE_VERSION=1.3.0\n',
    );
  });

  it('appends the setting when it is missing, after a line break if the file lacks a final one', () => {
    expect(setEnvValue('A=1', 'SERVICE_VERSION', '1.3.0')).toBe('A=1\nSERVICE_VERSION=1.3.0\n');
    expect(setEnvValue('A=1\n', 'SERVICE_VERSION', '1.3.0')).toBe('A=1\nSERVICE_VERSION=1.3.0\n');
    expect(setEnvValue('', 'SERVICE_VERSION', '1.3.0')).toBe('SERVICE_VERSION=1.3.0\n');
  });

  it('refuses a value that would need quoting', () => {
    expect(() => setEnvValue('', 'A', 'two words')).toThrow(RangeError);
  });
});

describe('replaceFileAtomically', () => {
  let folder: TestFolder;
  beforeEach(() => (folder = createTestFolder('env-')));
  afterEach(() => folder.remove());

  it('replaces the content and keeps the mode', () => {
    const file = folder.path('.env');
    writeFileSync(file, 'A=1\n');
    chmodSync(file, 0o600);
    return replaceFileAtomically(file, 'A=2\n').then(() => {
      expect(readFileSync(file, 'utf8')).toBe('A=2\n');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    });
  });
});
