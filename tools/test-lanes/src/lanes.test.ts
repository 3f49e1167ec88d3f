import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { testDatabaseServerUrl } from '@service/db/testing';
import { laneFiles, LANES, testFileNameProblem, type Lane } from './lanes.ts';
import { watchProcesses } from './watch-processes.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const IGNORE = ['**/node_modules/**'];

describe('test lanes', () => {
  it('put every test file of the repository in exactly one lane, the one its name says', async () => {
    const all = await glob(['{apps,packages,tools}/**/*.test.ts'], { cwd: ROOT, ignore: IGNORE });
    const laneOf = new Map<string, Lane[]>();
    for (const lane of LANES) {
      const { include, exclude } = laneFiles(lane);
      for (const file of await glob(include, { cwd: ROOT, ignore: [...IGNORE, ...exclude] }))
        laneOf.set(file, [...(laneOf.get(file) ?? []), lane]);
    }
    expect(all.length).toBeGreaterThan(100);
    expect(all.filter((file) => laneOf.get(file)?.length !== 1)).toEqual([]);
    for (const file of all) {
      const tag = /\.(db|process|browser)\.test\.ts$/.exec(file)?.[1] ?? 'unit';
      expect(laneOf.get(file), file).toEqual([tag]);
    }
    expect(all.map(testFileNameProblem).filter(Boolean)).toEqual([]);
  });

  it('refuse a misspelt or doubled tag instead of running the file in the unit lane', () => {
    expect(testFileNameProblem('a/b/report.test.ts')).toBeNull();
    expect(testFileNameProblem('a/b/report.fixtures.db.test.ts')).toBeNull();
    expect(testFileNameProblem('a/b/report.database.test.ts')).toMatch(/unknown tag \.database/);
    expect(testFileNameProblem('a/b/report.db.process.test.ts')).toMatch(/one lane tag/);
    expect(testFileNameProblem('a/b/report.db.fixtures.test.ts')).toMatch(/after \.fixtures/);
  });

  it('give the unit lane no database, with an error that names the lane to use', () => {
    expect(() => testDatabaseServerUrl()).toThrow(/name the file \*\.db\.test\.ts/);
  });

  it('refuse a process where the lane starts none, however it is started', () => {
    const watch = watchProcesses((command) => `no process here (${command})`);
    try {
      expect(() => spawn('true')).toThrow('no process here (true)');
      expect(() => execFileSync('true')).toThrow('no process here (true)');
    } finally {
      watch.stop();
    }
  });
});
