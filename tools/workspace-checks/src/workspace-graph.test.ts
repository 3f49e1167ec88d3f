// The layout rules of docs/architecture.md that no linter states. Biome finds import cycles between
// files and knip (npm run check:deps) that every import is declared in its workspace's manifest;
// this test adds what both leave open: the workspace packages depend on each other without a cycle
// (a package's tests count: they need it built first), and no file reaches into another workspace
// by a relative path (a package's public face is what its package.json `exports` names).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const GROUPS = ['apps', 'packages', 'tools'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'generated', 'coverage']);
const SOURCE = /\.(?:ts|mts|mjs|js)$/;
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

interface Workspace {
  name: string;
  dir: string;
  dependsOn: string[];
}

function workspaces(): Workspace[] {
  const found: Array<{ name: string; dir: string; deps: string[] }> = [];
  for (const group of GROUPS)
    for (const entry of readdirSync(path.join(ROOT, group), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = path.join(ROOT, group, entry.name);
      let manifest: { name: string; dependencies?: object; devDependencies?: object };
      try {
        manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      found.push({
        name: manifest.name,
        dir,
        deps: [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})],
      });
    }
  const names = new Set(found.map((w) => w.name));
  return found.map(({ name, dir, deps }) => ({ name, dir, dependsOn: deps.filter((d) => names.has(d)) }));
}

/** A dependency cycle as the names along it (first name repeated at the end), or null. */
function findCycle(edges: ReadonlyMap<string, readonly string[]>): string[] | null {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node];
    if (done.has(node)) return null;
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(node);
    return null;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) yield* sourceFiles(path.join(dir, entry.name));
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path.join(dir, entry.name);
  }
}

describe('workspace packages', () => {
  const all = workspaces();

  it('depend on each other without a cycle', () => {
    expect(all.length).toBeGreaterThan(10);
    expect(findCycle(new Map(all.map((w) => [w.name, w.dependsOn])))).toBeNull();
  });

  it('find a cycle when there is one (the check above can fail)', () => {
    const edges = new Map([
      ['@service/client', ['@service/http']],
      ['@service/http', []],
      ['@service/api', ['@service/http', '@service/client']],
    ]);
    expect(findCycle(edges)).toBeNull();
    edges.set('@service/client', ['@service/api']);
    expect(findCycle(edges)).toEqual(['@service/client', '@service/api', '@service/client']);
  });

  it('import one another by name, never by a relative path into another workspace', () => {
    const crossings: string[] = [];
    for (const workspace of all)
      for (const file of sourceFiles(workspace.dir))
        for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
          const target = path.resolve(path.dirname(file), specifier ?? '');
          const owner = all.find((w) => target === w.dir || target.startsWith(`${w.dir}${path.sep}`));
          if (owner && owner !== workspace) crossings.push(`${path.relative(ROOT, file)} imports ${specifier}`);
        }
    expect(crossings).toEqual([]);
  });
});
