import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand } from '@service/cli-kit';
import { parseReleaseVersion } from '@service/release-kit';
import { buildApp } from '../build/build-app.ts';
import { buildInstaller } from '../build/build-installer.ts';
import type { ReleaseContext } from '../release-context.ts';

export const buildAppCommand = defineCommand<ReleaseContext, { out: string; version?: string }>({
  name: 'build-app',
  summary: 'Builds the service, the admin CLI, the migrations and the installer as JavaScript into a folder',
  description:
    'Run the service with `node <out>/apps/api/src/main.js` (with node_modules beside ' +
    'it or above), the admin CLI with `node <out>/apps/api/src/admin.js`, the ' +
    'installer with `node <out>/installer/installer.mjs`.',
  options: [
    { flags: '--out <dir>', description: 'output folder (emptied first)', required: true },
    {
      flags: '--version <version>',
      description: 'version the built service reports (default: the root package.json version)',
    },
  ],
  examples: ['npm run release -- build-app --out dist/app'],
  async run(ctx, input) {
    const outDir = path.resolve(ctx.cwd, input.out);
    const version = input.version
      ? parseReleaseVersion(input.version)
      : (JSON.parse(await readFile(path.join(ctx.repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
    const started = Date.now();
    const app = await buildApp({
      repoRoot: ctx.repoRoot,
      outDir,
      version,
      sourceSha: ctx.env.SERVICE_BUILD_SHA ?? 'unknown',
    });
    await buildInstaller({ repoRoot: ctx.repoRoot, outFile: path.join(outDir, 'installer/installer.mjs') });
    ctx.out(`Built ${version} into ${outDir} (${app.files + 1} files) in ${Date.now() - started} ms`);
  },
});
