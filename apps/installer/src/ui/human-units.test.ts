import { describe, expect, it } from 'vitest';
import { formatAge, formatBytes } from './human-units.ts';

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [512, '512 B'],
    [1536, '1.50 KiB'],
    [2 * 1024 * 1024 + 200_000, '2.19 MiB'],
    [12.3 * 1024 ** 2, '12.3 MiB'],
    [412 * 1024 ** 3, '412 GiB'],
    [1024 ** 2 - 1, '1.00 MiB'],
    [3 * 1024 ** 4, '3.00 TiB'],
  ])('%d bytes is %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe('formatAge', () => {
  it.each([
    [40_000, '40 s'],
    [12 * 60_000, '12 min'],
    [5 * 3_600_000, '5 h'],
    [3 * 86_400_000, '3 days'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});
