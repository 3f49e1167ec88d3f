import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GERMAN } from './german.ts';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(path.join(dir, e.name))
      : /\.tsx?$/.test(e.name) && !e.name.endsWith('.test.ts')
        ? [path.join(dir, e.name)]
        : [],
  );
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the German interface', () => {
  const keys = new Set<string>();
  for (const file of sources(SRC))
    for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'((?:[^'\\]|\\.)*)'/g))
      keys.add(m[1]!.replace(/\\'/g, "'"));

  it('has every text the sources pass to t()', () => {
    expect(keys.size).toBeGreaterThan(150);
    expect([...keys].filter((k) => !(k in GERMAN))).toEqual([]);
  });

  it('keeps every placeholder of each text', () => {
    const broken = Object.entries(GERMAN).filter(([en, de]) => placeholders(en).join() !== placeholders(de).join());
    expect(broken).toEqual([]);
  });
});
