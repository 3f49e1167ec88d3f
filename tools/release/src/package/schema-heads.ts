import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Last migration of each database (the schema a started release leaves), named as knex records it. */
export async function readSchemaHeads(
  migrationsRoot: string,
): Promise<{ controlPlane: string | null; shared: string | null; tenant: string | null }> {
  const head = async (folder: string) => {
    const names = (await readdir(path.join(migrationsRoot, folder)))
      .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts') && !f.endsWith('.test.ts'))
      .map((f) => f.replace(/\.(ts|js)$/, ''))
      .sort();
    return names[names.length - 1] ?? null;
  };
  return { controlPlane: await head('control-plane'), shared: await head('shared'), tenant: await head('tenant') };
}
