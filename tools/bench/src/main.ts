// Runs the benchmarks under src/benches and prints their figures.
// `npm run bench` runs every benchmark; `npm run bench -- <name> [...]` runs the named ones
// (file names without `.ts`, for example `scanner-parse`).
import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const benchesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'benches');

async function main(): Promise<void> {
  const available = (await readdir(benchesDir))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !available.includes(w));
  if (unknown.length > 0) {
    console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available.join(', ')}`);
    process.exit(2);
  }
  for (const name of wanted.length > 0 ? wanted : available) {
    console.log(`\n=== ${name} ===`);
    const mod = (await import(pathToFileURL(path.join(benchesDir, `${name}.ts`)).href)) as {
      default: () => Promise<void>;
    };
    await mod.default();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
