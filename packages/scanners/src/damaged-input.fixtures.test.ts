import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { NormalizedFindingSchema, parseScan, ScanParseError, type ScanFormat } from './index.ts';
import { loadExpected, readFixture } from './testing/scan-fixtures.ts';

/** Small seeded generator so failures can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const validator = Compile(NormalizedFindingSchema);

const INSERTIONS = [
  '<',
  '>',
  '&',
  ']]>',
  '<!--',
  '"',
  '\u0000',
  '</',
  '<!DOCTYPE x [<!ENTITY a "b">]>',
  '{',
  '[',
  '\\',
  '\n',
];

/** Truncations, flipped bytes and inserted markup: every outcome must be a result or a ScanParseError. */
function damage(bytes: Uint8Array, next: () => number): Uint8Array {
  const at = Math.floor(next() * bytes.length);
  switch (Math.floor(next() * 3)) {
    case 0:
      return bytes.subarray(0, at);
    case 1: {
      const copy = bytes.slice();
      for (let k = 0; k < 4; k++) copy[Math.floor(next() * copy.length)] = Math.floor(next() * 256);
      return copy;
    }
    default: {
      const insert = new TextEncoder().encode(INSERTIONS[Math.floor(next() * INSERTIONS.length)]);
      const copy = new Uint8Array(bytes.length + insert.length);
      copy.set(bytes.subarray(0, at));
      copy.set(insert, at);
      copy.set(bytes.subarray(at), at + insert.length);
      return copy;
    }
  }
}

describe('damaged fixtures give valid findings or a ScanParseError, nothing else', () => {
  it.each(Object.keys(loadExpected().files))('%s', (file) => {
    const original = readFixture(file);
    const format = file.split('/')[0] as ScanFormat;
    const next = random(file.length * 7919);
    const rounds = original.length > 500_000 ? 8 : 40;
    for (let round = 0; round < rounds; round++) {
      const damaged = damage(original, next);
      for (const options of [{ format }, {}]) {
        try {
          for (const finding of parseScan(damaged, options).findings) expect(validator.Errors(finding)).toEqual([]);
        } catch (error) {
          if (!(error instanceof ScanParseError)) throw new Error(`round ${round}: ${String(error)}`, { cause: error });
          expect(error.message.length).toBeGreaterThan(20);
        }
      }
    }
  });
});
