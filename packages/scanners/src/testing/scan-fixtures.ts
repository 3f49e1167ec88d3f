import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root: three levels up from packages/scanners/src/testing is one more than from src. */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The shared scanner fixtures live beside the repository, never inside it. */
export const fixturesDir = path.resolve(repoRoot, '../shared/fixtures/scans');

export interface ExpectedFile {
  [key: string]: unknown;
  spot_checks?: Record<string, unknown>[];
  extra_checks?: Record<string, unknown>[];
}

export interface ExpectedFacts {
  rules: Record<string, unknown>;
  files: Record<string, ExpectedFile>;
}

export function loadExpected(): ExpectedFacts {
  return JSON.parse(readFileSync(path.join(fixturesDir, 'EXPECTED.json'), 'utf8')) as ExpectedFacts;
}

export function readFixture(relativePath: string): Uint8Array {
  return readFileSync(path.join(fixturesDir, relativePath));
}
