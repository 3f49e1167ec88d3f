import path from 'node:path';
import { defineCommand } from '@service/cli-kit';
import { buildRelease } from '../build-release.ts';
import { DockerCli } from '../images/docker-cli.ts';
import type { ReleaseContext } from '../release-context.ts';

interface PackageInput {
  version: string;
  signKey?: string;
  changelog?: string;
  out?: string;
  minUpgradeFrom?: string;
  createdAt?: string;
}

export const packageCommand = defineCommand<ReleaseContext, PackageInput>({
  name: 'package',
  summary: 'Builds dist/release/service-X.Y.Z-offline.tar.gz and its .sha256 (the default command)',
  description:
    'The release notes are the "## [X.Y.Z] - YYYY-MM-DD" section of the changelog (a ' +
    'version without one is refused); its date fixes every time in the package, so ' +
    'building twice gives the same bytes. Images come from the `docker` first on ' +
    'PATH: the app is built from release/docker/Dockerfile, the others (pinned in ' +
    'release/compose.yaml) are taken from the engine or pulled.',
  isDefault: true,
  arguments: [{ name: 'version', description: 'the release version, X.Y.Z (semver, no "v")' }],
  options: [
    {
      flags: '--sign-key <file>',
      description:
        'Ed25519 private key (PEM) signing SHA256SUMS and manifest.json; without it the ' +
        'package is unsigned and every installer refuses it',
    },
    { flags: '--changelog <file>', description: 'changelog to cut the release notes from (default: CHANGELOG.md)' },
    { flags: '--out <dir>', description: 'output folder (default: dist/release)' },
    {
      flags: '--min-upgrade-from <version>',
      description:
        'oldest installed version that may upgrade straight to this one (default: the oldest release in the changelog)',
    },
    {
      flags: '--created-at <time>',
      description: 'fixed time of the package (default: the date of the changelog section)',
    },
  ],
  examples: ['npm run release -- 1.4.0 --sign-key ~/vendor-keys/license-signing.key.pem'],
  async run(ctx, input) {
    const resolve = (p: string) => path.resolve(ctx.cwd, p);
    await buildRelease({
      repoRoot: ctx.repoRoot,
      version: input.version,
      outDir: input.out ? resolve(input.out) : path.join(ctx.repoRoot, 'dist/release'),
      changelogFile: input.changelog ? resolve(input.changelog) : path.join(ctx.repoRoot, 'CHANGELOG.md'),
      signKeyFile: input.signKey ? resolve(input.signKey) : null,
      minUpgradeFrom: input.minUpgradeFrom,
      createdAt: input.createdAt,
      engine: new DockerCli(ctx.env),
      out: ctx.out,
    });
  },
});
