// The release tool with the stand-in `docker` first on PATH (no engine runs on these machines).
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestFolder,
  createTestSigningKey,
  installStandInDocker,
  type StandInDocker,
  type TestFolder,
} from '@service/release-kit/testing';
import { buildRelease, type BuiltRelease } from './build-release.ts';
import { DockerCli } from './images/docker-cli.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const CHANGELOG =
  `# Changelog\n\n## [Unreleased]\n\n## [1.3.0] - 2026-11-22\n\n### Added\n- Signed ` +
  `offline packages.\n\n## [1.2.0] - 2026-11-15\n\n### Added\n- First ` +
  `release.\n\n[1.3.0]: https://example.com\n`;

describe('npm run release', () => {
  let folder: TestFolder;
  let docker: StandInDocker;
  let keyFile: string;
  const output: string[][] = [];
  let first: BuiltRelease;
  let second: BuiltRelease;

  const build = (outDir: string, options: { signed?: boolean } = {}) => {
    const lines: string[] = [];
    output.push(lines);
    return buildRelease({
      repoRoot: REPO,
      version: '1.3.0',
      outDir,
      changelogFile: folder.path('CHANGELOG.md'),
      signKeyFile: options.signed === false ? null : keyFile,
      sourceSha: 'f'.repeat(40),
      engine: new DockerCli({ ...process.env, PATH: docker.path }),
      out: (l) => lines.push(l),
    });
  };

  beforeAll(async () => {
    folder = createTestFolder('release-');
    docker = installStandInDocker(folder.path('docker'));
    writeFileSync(folder.path('CHANGELOG.md'), CHANGELOG);
    keyFile = folder.path('key.pem');
    writeFileSync(keyFile, createTestSigningKey().privatePem, { mode: 0o600 });
    first = await build(folder.path('out-1'));
    second = await build(folder.path('out-2'));
  });
  afterAll(() => folder.remove());

  it('gives the same bytes when built twice', () => {
    expect(second.sha256).toBe(first.sha256);
    expect(readFileSync(second.tarball).equals(readFileSync(first.tarball))).toBe(true);
  });

  it('writes a .sha256 that sha256sum -c accepts', () => {
    expect(readFileSync(`${first.tarball}.sha256`, 'utf8')).toBe(`${first.sha256}  service-1.3.0-offline.tar.gz\n`);
    expect(
      execFileSync('sha256sum', ['-c', 'service-1.3.0-offline.tar.gz.sha256'], {
        cwd: path.dirname(first.tarball),
      }).toString(),
    ).toBe('service-1.3.0-offline.tar.gz: OK\n');
  });

  it('lays the package out as INSTALLER.md says, sorted, owned by 0:0, every time fixed', () => {
    const listing = execFileSync('tar', ['tvzf', first.tarball]).toString().trim().split('\n');
    const names = listing.map((l) => l.split(/\s+/).pop()!);
    expect(names[0]).toBe('service-1.3.0/');
    for (const wanted of [
      'service-1.3.0/install.sh',
      'service-1.3.0/installer/installer.mjs',
      'service-1.3.0/compose.yaml',
      'service-1.3.0/docker/Dockerfile',
      'service-1.3.0/docker/Caddyfile',
      'service-1.3.0/docker/certs/README.md',
      'service-1.3.0/docker/postgres-init/10-create-databases.sql',
      'service-1.3.0/.env.self-hosted.example',
      'service-1.3.0/images/app.tar',
      'service-1.3.0/images/database.tar',
      'service-1.3.0/images/files.tar',
      'service-1.3.0/images/proxy.tar',
      'service-1.3.0/library/README.md',
      'service-1.3.0/library-manifest.json',
      'service-1.3.0/RELEASE_NOTES.md',
      'service-1.3.0/manifest.json',
      'service-1.3.0/manifest.json.sig',
      'service-1.3.0/SHA256SUMS',
      'service-1.3.0/SHA256SUMS.sig',
    ])
      expect(names).toContain(wanted);
    expect(listing.every((l) => l.includes(' 0/0 '))).toBe(true);
    // Folders too: a folder dated 1970 makes extracted trees look corrupt to backup tools.
    expect(listing.every((l) => l.includes('2026-11-22 00:00'))).toBe(true);
    expect(listing.find((l) => l.endsWith('install.sh'))!.startsWith('-rwxr-xr-x')).toBe(true);
  });

  it('cuts the release notes from the changelog section and fills the manifest', () => {
    const dir = folder.path('x');
    execFileSync('mkdir', ['-p', dir]);
    execFileSync('tar', ['xzf', first.tarball, '-C', dir]);
    expect(readFileSync(path.join(dir, 'service-1.3.0/RELEASE_NOTES.md'), 'utf8')).toBe(
      '## [1.3.0] - 2026-11-22\n\n### Added\n- Signed offline packages.\n',
    );
    expect(first.manifest).toMatchObject({
      version: '1.3.0',
      minUpgradeFrom: '1.2.0',
      createdAt: '2026-11-22T00:00:00.000Z',
      sourceSha: 'f'.repeat(40),
    });
    expect(first.manifest.images.map((i) => `${i.role} ${i.name}:${i.tag}`)).toEqual([
      'app service/app:1.3.0',
      'database postgres:17.10-bookworm',
      'files busybox:1.37.0',
      'proxy caddy:2.10.2-alpine',
    ]);
    expect(first.manifest.schemaHeads.controlPlane).toMatch(/^\d{14}_/);
    expect(first.manifest.library.items).toBeGreaterThan(0);
    const library = JSON.parse(readFileSync(path.join(dir, 'service-1.3.0/library-manifest.json'), 'utf8'));
    expect(library).toMatchObject({ format: 'service-library-manifest-v1', version: first.manifest.library.version });
    expect(library.items).toHaveLength(first.manifest.library.items);
    expect(library.items[0]).toEqual({
      kind: expect.any(String),
      key: expect.any(String),
      revision: expect.any(String),
    });
    // The installer needs no rendering code (and no native module) for the library question.
    expect(readFileSync(path.join(dir, 'service-1.3.0/installer/installer.mjs'), 'utf8')).not.toMatch(
      /resvg|docxtemplater/,
    );
    expect(
      execFileSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: path.join(dir, 'service-1.3.0') }).toString(),
    ).toBe('');
  });

  it('says where each image came from and which docker it used', () => {
    const text = output[0]!.join('\n');
    expect(text).toContain(`images from ${docker.binDir}/docker (engine 27.3.1-stand-in)`);
    expect(text).toMatch(/app\s+service\/app:1\.3\.0\s+built from release\/docker\/Dockerfile/);
    expect(text).toMatch(/database\s+postgres:17\.10-bookworm\s+pulled from its registry/);
    expect(output[1]!.join('\n')).toMatch(/database\s+postgres:17\.10-bookworm\s+from the engine’s image store/);
    const calls = docker.commandLines();
    expect(calls.slice(0, 3)).toEqual([
      'version --format {{.Server.Version}}',
      expect.stringMatching(
        /^build --quiet --file \S+\/Dockerfile --tag service\/app:1\.3\.0 --build-arg SOURCE_DATE_EPOCH=1795305600 \S+$/,
      ),
      'image inspect --format {{.Id}} service/app:1.3.0',
    ]);
    expect(calls[3]).toMatch(/^save --output \S+\/images\/app\.tar service\/app:1\.3\.0$/);
    expect(calls.slice(4, 8)).toEqual([
      'image inspect --format {{.Id}} postgres:17.10-bookworm',
      'pull postgres:17.10-bookworm',
      'image inspect --format {{.Id}} postgres:17.10-bookworm',
      expect.stringMatching(/^save --output \S+\/images\/database\.tar postgres:17\.10-bookworm$/),
    ]);
  });

  it('builds an unsigned package only when asked, and says every installer refuses it', async () => {
    const unsigned = await build(folder.path('out-unsigned'), { signed: false });
    expect(unsigned.signedBy).toBeNull();
    expect(output[output.length - 1]!.join('\n')).toContain(
      'UNSIGNED: no --sign-key was given; every installer refuses this package.',
    );
    expect(execFileSync('tar', ['tzf', unsigned.tarball]).toString()).not.toContain('.sig');
  });

  it('refuses a version without a changelog section, naming it, before building anything', async () => {
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          '--import',
          'tsx',
          'tools/release/src/main.ts',
          '1.4.0',
          '--changelog',
          folder.path('CHANGELOG.md'),
          '--out',
          folder.path('out-none'),
        ],
        { cwd: REPO, env: { ...process.env, PATH: docker.path } },
        (err, _o, stderr) => resolve({ code: err ? (err.code as number) : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: ${folder.path('CHANGELOG.md')} has no section "## [1.4.0]"; a release's ` +
        `notes are cut from it\nhint: Add "## [1.4.0] - YYYY-MM-DD" with the changes of ` +
        `1.4.0 (move them from [Unreleased]), then build again.\n`,
    );
    await expect(
      buildRelease({
        repoRoot: REPO,
        version: 'v1.3',
        outDir: folder.path('o'),
        changelogFile: folder.path('CHANGELOG.md'),
        signKeyFile: null,
        engine: new DockerCli({ PATH: docker.path }),
        out: () => {},
      }),
    ).rejects.toThrow('release version "v1.3" is not a semantic version');
  });
});
