import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import {
  CERTS_DIR,
  ENV_EXAMPLE_FILE,
  imageReference,
  PROXY_CONFIG_FILE,
  SUMS_FILE,
  type PackageManifest,
} from '@service/release-kit';
import { setEnvValue } from '../install-dir/env-file.ts';
import { BACKUPS_DIR, FILES_DIR, LICENSE_DIR, POSTGRES_DATA_DIR } from '../install-dir/install-layout.ts';
import { releaseUnits, swapReleaseFiles } from '../install-dir/release-files.ts';
import type { ServiceRuntime } from '../runtime/service-runtime.ts';
import { waitForHealth, type Clock } from '../runtime/wait-for-health.ts';
import type { Reporter } from '../ui/reporter.ts';

/**
 * A first installation from a verified package: images, release files, the operator's files
 * from the package (proxy configuration, certs/), folders, a `.env` made from the example with
 * generated secrets and the operator's settings, then start and wait for health.
 */
export async function applyInstall(options: {
  home: string;
  packageDir: string;
  manifest: PackageManifest;
  settings: ReadonlyMap<string, string>;
  /** The first administrator's password: handed to the first start only, never written to .env. */
  adminPassword: string;
  runtime: ServiceRuntime;
  reporter: Reporter;
  clock: Clock;
  healthTimeoutMs: number;
  healthGraceMs: number;
}): Promise<void> {
  const { home, packageDir, manifest, runtime, reporter } = options;
  let step = reporter.step(`Load the images of ${manifest.version}`);
  for (const image of manifest.images) {
    if (await runtime.hasImage(image)) continue;
    const bar = reporter.bar(`load ${imageReference(image)}`, image.bytes, 'bytes');
    await runtime.loadImage(path.join(packageDir, image.archive), image, (done, total) => bar.update(done, total));
    bar.stop();
  }
  step.done();

  step = reporter.step('Copy the release files');
  const units = releaseUnits(await readFile(path.join(packageDir, SUMS_FILE), 'utf8'));
  await swapReleaseFiles({
    home,
    packageDir,
    plan: { replace: units, remove: [] },
    previousDir: path.join(home, '.previous-none'),
    stagingName: `.staging-${manifest.version}`,
  });
  for (const operatorOwned of [PROXY_CONFIG_FILE, CERTS_DIR]) {
    if (!existsSync(path.join(home, operatorOwned)))
      await cp(path.join(packageDir, operatorOwned), path.join(home, operatorOwned), { recursive: true });
  }
  for (const dir of [FILES_DIR, POSTGRES_DATA_DIR, LICENSE_DIR]) await mkdir(path.join(home, dir), { recursive: true });
  await mkdir(path.join(home, BACKUPS_DIR), { recursive: true, mode: 0o700 });
  step.done(`${units.length} release files and folders, docker/Caddyfile and docker/certs/ (yours from now on)`);

  step = reporter.step('Write .env');
  let env = await readFile(path.join(packageDir, ENV_EXAMPLE_FILE), 'utf8');
  const values = new Map<string, string>([
    ['SERVICE_VERSION', manifest.version],
    ['POSTGRES_PASSWORD', randomBytes(24).toString('hex')],
    ['SERVICE_HOSTNAME', hostname()],
    ...options.settings,
  ]);
  for (const [key, value] of values) {
    try {
      env = setEnvValue(env, key, value);
    } catch {
      throw new OperatorError(`--set ${key}=… : the value holds characters that need quoting`, {
        hint: 'Use letters, digits and . _ + - / : @ = , only, or edit .env afterwards.',
      });
    }
  }
  await writeFile(path.join(home, '.env'), env, { mode: 0o600, flag: 'wx' });
  step.done(
    `SERVICE_VERSION=${manifest.version}, ` +
      `SERVICE_HOSTNAME=${values.get('SERVICE_HOSTNAME')}, a generated ` +
      `POSTGRES_PASSWORD`,
  );

  step = reporter.step('Start the service (it creates the databases and the first administrator)');
  await runtime.up({ firstStartEnv: { SERVICE_ADMIN_PASSWORD: options.adminPassword } });
  await waitOrThrow(options, step);
  // Why a second start: the container (or process) of the first start holds the password in
  // its environment; started again without it, nothing keeps it.
  step = reporter.step('Start the service again without the first password');
  await runtime.stopApp();
  await runtime.up();
  await waitOrThrow(options, step);
}

async function waitOrThrow(
  options: Parameters<typeof applyInstall>[0],
  step: ReturnType<Reporter['step']>,
): Promise<void> {
  const { runtime, reporter, manifest, home } = options;
  const health = await waitForHealth(runtime, {
    expectedVersion: manifest.version,
    timeoutMs: options.healthTimeoutMs,
    graceMs: options.healthGraceMs,
    clock: options.clock,
  });
  if (!health.ok) {
    step.fail(health.reason);
    const tail = await runtime.appLogTail(20).catch(() => '');
    if (tail.trim() !== '') reporter.info(`last lines of the app's output:\n${tail.trim()}`);
    throw new OperatorError(`${manifest.version} was installed in ${home} but does not start: ${health.reason}`, {
      hint: `Read the log in ${home}/logs/ and correct .env, then run \`docker compose up -d\` in ${home}.`,
    });
  }
  step.done(`healthy after ${(health.healthyAfterMs / 1000).toFixed(1)} s`);
}
