import { execFileSync } from 'node:child_process';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import { loadLibrary, LibraryError, type Library } from '@service/library';
import { libraryManifest } from '@service/library/manifest';
import {
  COMPOSE_FILE,
  DOCKER_DIR,
  ENV_EXAMPLE_FILE,
  formatSha256Sums,
  hashTree,
  imageReference,
  INSTALL_SCRIPT,
  INSTALLER_ENTRY,
  LIBRARY_DIR,
  LIBRARY_MANIFEST_FILE,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  packageDirName,
  packageFileName,
  parseReleaseVersion,
  readReleaseSigningKey,
  RELEASE_NOTES_FILE,
  releaseTrustedKeys,
  serializeLibraryManifestFile,
  serializePackageManifest,
  sha256File,
  SIGNATURE_SUFFIX,
  signReleaseFile,
  SUMS_FILE,
  UNLISTED_FILES,
  verifyPackage,
  type ManifestImage,
  type PackageManifest,
} from '@service/release-kit';
import { buildApp } from './build/build-app.ts';
import { buildInstaller } from './build/build-installer.ts';
import { cutReleaseNotes, oldestReleasedVersion } from './changelog/release-notes.ts';
import { composeImages } from './images/compose-images.ts';
import type { ImageEngine } from './images/image-engine.ts';
import { writeReproducibleTarball } from './package/reproducible-tarball.ts';
import { readSchemaHeads } from './package/schema-heads.ts';

export interface BuildReleaseOptions {
  repoRoot: string;
  version: string;
  /** Where the tarball and its .sha256 go (created). */
  outDir: string;
  changelogFile: string;
  /** PEM private key; null builds an unsigned package (every installer refuses it). */
  signKeyFile: string | null;
  minUpgradeFrom?: string;
  /** ISO time for manifest.createdAt and every mtime; default: the changelog section's date. */
  createdAt?: string;
  sourceSha?: string;
  engine: ImageEngine;
  out: (line: string) => void;
  /** Test seam: change the app's build context before the image is built (e.g. a broken app). */
  beforeAppImage?: (contextDir: string) => Promise<void>;
  /** The global library to ship (default `<repoRoot>/library`; tests ship a changed one). */
  libraryDir?: string;
}

export interface BuiltRelease {
  tarball: string;
  sha256: string;
  bytes: number;
  manifest: PackageManifest;
  signedBy: string | null;
}

/**
 * Builds `service-X.Y.Z-offline.tar.gz` (INSTALLER.md "The package"): the app built as JavaScript
 * and saved as an image with the third-party images compose.yaml pins, the installer, compose.yaml,
 * docker/, the settings example, install.sh, the library, the release notes cut from the
 * changelog, manifest.json, SHA256SUMS and their signatures; then the tarball and its .sha256.
 * Reproducible: the same inputs give the same bytes.
 */
export async function buildRelease(options: BuildReleaseOptions): Promise<BuiltRelease> {
  const { repoRoot, out } = options;
  const started = Date.now();
  const version = parseReleaseVersion(options.version, 'release version');

  // Everything that can refuse the build is checked before anything is built.
  const changelog = await readFile(options.changelogFile, 'utf8').catch(() => {
    throw new OperatorError(`cannot read the changelog ${options.changelogFile}`, {
      hint: 'Pass --changelog <file>, or run from the repository.',
    });
  });
  const changelogName = options.changelogFile.startsWith(`${repoRoot}${path.sep}`)
    ? path.relative(repoRoot, options.changelogFile)
    : options.changelogFile;
  const notes = cutReleaseNotes(changelog, version, changelogName);
  const createdAt = releaseTime(options.createdAt, notes.date, version);
  const minUpgradeFrom = parseReleaseVersion(
    options.minUpgradeFrom ?? oldestReleasedVersion(changelog, version),
    'minUpgradeFrom',
  );
  const signingKey = options.signKeyFile === null ? null : await readSigningKey(options.signKeyFile);
  const sourceSha = options.sourceSha ?? readSourceSha(repoRoot);
  const libraryDir = options.libraryDir ?? path.join(repoRoot, 'library');
  const library = await loadShippedLibrary(libraryDir);
  const schemaHeads = await readSchemaHeads(path.join(repoRoot, 'migrations'));
  const composeText = await readFile(path.join(repoRoot, 'release', COMPOSE_FILE), 'utf8');
  const wanted = composeImages(composeText, version);

  const work = path.join(options.outDir, `.work-${version}`);
  const stage = path.join(work, 'stage');
  const pkg = path.join(stage, packageDirName(version));
  await rm(work, { recursive: true, force: true });
  await mkdir(path.join(pkg, 'images'), { recursive: true });
  try {
    out(
      `Building ${packageFileName(version)} from ${sourceSha.slice(0, 12)} ` +
        `(minUpgradeFrom ${minUpgradeFrom}, dated ${createdAt})`,
    );

    const context = path.join(work, 'app-image');
    const app = await buildApp({ repoRoot, outDir: path.join(context, 'app'), version, sourceSha, libraryDir });
    out(`  app built as JavaScript: ${app.files} files; packages from node_modules: ${app.externals.join(', ')}`);
    await copyNpmManifests(repoRoot, path.join(context, 'npm'));
    await cp(path.join(repoRoot, 'release', DOCKER_DIR, 'Dockerfile'), path.join(context, 'Dockerfile'));
    await buildInstaller({ repoRoot, outFile: path.join(pkg, INSTALLER_ENTRY) });
    out(`  installer built: ${INSTALLER_ENTRY}`);

    for (const file of [INSTALL_SCRIPT, COMPOSE_FILE, ENV_EXAMPLE_FILE])
      await cp(path.join(repoRoot, 'release', file), path.join(pkg, file));
    await cp(path.join(repoRoot, 'release', DOCKER_DIR), path.join(pkg, DOCKER_DIR), { recursive: true });
    await cp(libraryDir, path.join(pkg, LIBRARY_DIR), { recursive: true });
    // Why beside the library: the installer states the new and updated items from two of these,
    // without the readers (and renderers) the library itself needs.
    await writeFile(path.join(pkg, LIBRARY_MANIFEST_FILE), serializeLibraryManifestFile(libraryManifest(library)));
    await writeFile(path.join(pkg, RELEASE_NOTES_FILE), notes.text);

    await options.beforeAppImage?.(context);
    const engine = options.engine;
    out(`  images from ${engine.program} (engine ${await engine.serverVersion()}):`);
    const images: ManifestImage[] = [];
    for (const image of wanted) {
      const reference = imageReference(image);
      let origin: string;
      if (image.role === 'app') {
        await engine.build({
          contextDir: context,
          dockerfile: path.join(context, 'Dockerfile'),
          tag: reference,
          buildArgs: { SOURCE_DATE_EPOCH: String(Date.parse(createdAt) / 1000) },
        });
        origin = 'built from release/docker/Dockerfile';
      } else if ((await engine.imageId(reference)) !== null) {
        origin = 'from the engine’s image store';
      } else {
        await engine.pull(reference);
        origin = 'pulled from its registry';
      }
      const digest = await engine.imageId(reference);
      if (digest === null || !/^sha256:[0-9a-f]{64}$/.test(digest))
        throw new OperatorError(`${engine.program} reports no image id for ${reference}`, {
          hint: 'Check the engine with `docker image ls`.',
        });
      const archive = `images/${image.role}.tar`;
      await engine.save(reference, path.join(pkg, archive));
      const bytes = (await stat(path.join(pkg, archive))).size;
      images.push({ role: image.role, name: image.name, tag: image.tag, digest, archive, bytes });
      out(
        `    ${image.role.padEnd(9)}${reference.padEnd(34)}${origin}, ${digest.slice(0, 19)}…, ${formatBytes(bytes)}`,
      );
    }

    const manifest: PackageManifest = {
      format: MANIFEST_FORMAT,
      product: 'service',
      version,
      minUpgradeFrom,
      createdAt,
      sourceSha,
      images,
      library: { version: library.version, items: library.items.length },
      schemaHeads,
    };
    const manifestText = serializePackageManifest(manifest);
    await writeFile(path.join(pkg, MANIFEST_FILE), manifestText);
    const sums = formatSha256Sums(await hashTree(pkg, { exclude: UNLISTED_FILES }));
    await writeFile(path.join(pkg, SUMS_FILE), sums);
    let signedBy: string | null = null;
    if (signingKey) {
      await writeFile(
        path.join(pkg, `${SUMS_FILE}${SIGNATURE_SUFFIX}`),
        signReleaseFile(SUMS_FILE, Buffer.from(sums), signingKey.key),
      );
      await writeFile(
        path.join(pkg, `${MANIFEST_FILE}${SIGNATURE_SUFFIX}`),
        signReleaseFile(MANIFEST_FILE, Buffer.from(manifestText), signingKey.key),
      );
      // Why verify what was just written: a package an installer refuses is found here, not at the customer.
      const verified = await verifyPackage(pkg, releaseTrustedKeys([signingKey.publicBase64], '--sign-key'));
      signedBy = `${verified.signer.keyId}${verified.signer.vendor ? ' (vendor key)' : ' (not the vendor key: installers trust it only when configured to)'}`;
    }

    await mkdir(options.outDir, { recursive: true });
    const tarball = path.join(options.outDir, packageFileName(version));
    await writeReproducibleTarball({
      root: stage,
      topDir: packageDirName(version),
      outFile: tarball,
      mtime: new Date(createdAt),
      executables: [INSTALL_SCRIPT, INSTALLER_ENTRY],
    });
    const sha256 = await sha256File(tarball);
    await writeFile(`${tarball}.sha256`, `${sha256}  ${path.basename(tarball)}\n`);
    const bytes = (await stat(tarball)).size;
    out(
      `Wrote ${tarball} (${formatBytes(bytes)}) and ${path.basename(tarball)}.sha256 in ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    out(
      signedBy
        ? `  signed by key ${signedBy}`
        : '  UNSIGNED: no --sign-key was given; every installer refuses this package.',
    );
    out(`  sha256 ${sha256}`);
    return { tarball, sha256, bytes, manifest, signedBy };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function releaseTime(explicit: string | undefined, changelogDate: string | null, version: string): string {
  const raw =
    explicit ??
    (process.env.SOURCE_DATE_EPOCH
      ? new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000).toISOString()
      : changelogDate
        ? `${changelogDate}T00:00:00.000Z`
        : null);
  if (raw === null) {
    throw new OperatorError(
      `the changelog heading of ${version} has no date, and the package's time must be fixed for a reproducible build`,
      {
        hint: `Write the heading as "## [${version}] - YYYY-MM-DD", or pass --created-at.`,
      },
    );
  }
  const time = Date.parse(raw);
  if (!Number.isFinite(time))
    throw new OperatorError(`--created-at "${raw}" is not a date`, {
      hint: 'Give an ISO date such as 2026-11-20T00:00:00Z.',
    });
  return new Date(time).toISOString();
}

async function readSigningKey(file: string): Promise<{ key: KeyObject; publicBase64: string }> {
  const pem = await readFile(file, 'utf8').catch(() => {
    throw new OperatorError(`cannot read the signing key ${file}`, {
      hint: 'Pass the PEM private key with --sign-key (made by `npm run license -- keygen`).',
    });
  });
  const key = readReleaseSigningKey(pem, file);
  return { key, publicBase64: createPublicKey(key).export({ format: 'der', type: 'spki' }).toString('base64') };
}

function readSourceSha(repoRoot: string): string {
  if (process.env.SERVICE_BUILD_SHA) return process.env.SERVICE_BUILD_SHA;
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

async function loadShippedLibrary(dir: string): Promise<Library> {
  try {
    return await loadLibrary(dir);
  } catch (err) {
    if (err instanceof LibraryError)
      throw new OperatorError(`the library does not pass its check: ${err.message}`, {
        hint: 'Run `npm run library:check` and fix what it reports.',
        cause: err,
      });
    throw err;
  }
}

/** package.json and package-lock.json of the root and of every workspace: what `npm ci` in the image needs. */
async function copyNpmManifests(repoRoot: string, target: string): Promise<void> {
  await mkdir(target, { recursive: true });
  await cp(path.join(repoRoot, 'package.json'), path.join(target, 'package.json'));
  await cp(path.join(repoRoot, 'package-lock.json'), path.join(target, 'package-lock.json'));
  for (const group of ['apps', 'packages', 'tools']) {
    for (const entry of (await readdir(path.join(repoRoot, group), { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()) {
      const manifest = path.join(repoRoot, group, entry, 'package.json');
      if (
        await stat(manifest).then(
          () => true,
          () => false,
        )
      ) {
        await mkdir(path.join(target, group, entry), { recursive: true });
        await cp(manifest, path.join(target, group, entry, 'package.json'));
      }
    }
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
