import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, tooDeepAt } from './json-depth.ts';
import { findNulCharacters } from './validate.ts';

/** `levels` arrays or objects inside each other, parsed from text (JSON.parse itself does not recurse). */
const nested = (levels: number, kind: 'array' | 'object') =>
  JSON.parse(
    kind === 'array'
      ? `${'['.repeat(levels)}${']'.repeat(levels)}`
      : `${'{"a/b":'.repeat(levels)}1${'}'.repeat(levels)}`,
  );

describe('tooDeepAt', () => {
  it('accepts bodies up to the limit and names the first container beyond it', () => {
    expect(tooDeepAt(nested(MAX_JSON_DEPTH, 'array'))).toBeNull();
    expect(tooDeepAt(nested(MAX_JSON_DEPTH + 1, 'array'))).toBe(`/${Array(MAX_JSON_DEPTH).fill('0').join('/')}`);
    expect(tooDeepAt(nested(MAX_JSON_DEPTH + 1, 'object'))).toBe(`/${Array(MAX_JSON_DEPTH).fill('a~1b').join('/')}`);
    expect(tooDeepAt({ a: 1, b: [{ c: 'x' }] })).toBeNull();
    expect(tooDeepAt('text')).toBeNull();
    expect(tooDeepAt([], 0)).toBe('/');
  });

  it('walks 100,000 levels of arrays and of objects without overflowing the stack', () => {
    expect(tooDeepAt(nested(100_000, 'array'))).toMatch(/^\/0\//);
    expect(tooDeepAt(nested(100_000, 'object'))).toMatch(/^\/a~1b\//);
  });

  it('finds the deep branch beside wide shallow ones', () => {
    const wide = { items: Array.from({ length: 10_000 }, (_, i) => ({ i })), deep: nested(MAX_JSON_DEPTH, 'array') };
    expect(tooDeepAt(wide)).toBe(
      `/deep/${Array(MAX_JSON_DEPTH - 1)
        .fill('0')
        .join('/')}`,
    );
  });
});

describe('findNulCharacters', () => {
  it('walks 100,000 levels without recursion', () => {
    const deep = nested(100_000, 'array');
    let inner = deep;
    while (inner.length > 0) inner = inner[0];
    inner.push('a\u0000');
    expect(findNulCharacters(deep)).toEqual([`/${Array(100_000).fill('0').join('/')}`]);
  });

  it('reports keys and values in document order', () => {
    expect(findNulCharacters({ a: { x: '\u0000' }, 'k\u0000': 'ok', b: ['y', 'z\u0000'] })).toEqual([
      '/a/x',
      '/k\\u0000',
      '/b/1',
    ]);
  });
});
