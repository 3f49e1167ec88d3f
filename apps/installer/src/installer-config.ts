import { OperatorError } from '@service/cli-kit';
import { releaseTrustedKeys, ReleaseKitError, type TrustedKey } from '@service/release-kit';
import { parseFaultSpec, type FaultSpec } from './journal/fault-injection.ts';

/** The installer's own settings: environment variables of the installer process, never the installation's .env. */
export interface InstallerConfig {
  /** The vendor key (built in) plus SERVICE_INSTALLER_TRUSTED_KEYS. */
  trustedKeys: TrustedKey[];
  runtime: 'docker' | 'local-process';
  local: { pgBin: string; pgUser: string | null; nodeModules: string | null; nodeBinary: string };
  /** Longest wait for the service to answer healthy after a start. */
  healthTimeoutMs: number;
  /** How long the service must stay healthy after it first is, so a crash right after start is noticed. */
  healthGraceMs: number;
  /** Environment handed to the container engine (PATH, DOCKER_HOST, ...). */
  engineEnv: NodeJS.ProcessEnv;
  /** Tests only: a crash or full disk to simulate at a phase boundary. */
  testFault: FaultSpec | null;
}

/**
 * Reads the installer's settings; the only place that looks at the installer's environment:
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | SERVICE_INSTALLER_TRUSTED_KEYS | extra Ed25519 public keys (base64, comma-separated) trusted to sign packages; for
 * test setups | none |
 * | SERVICE_INSTALLER_RUNTIME | docker, or local-process (the end-to-end test's stand-in for the engine) | docker |
 * | SERVICE_INSTALLER_PG_BIN | local-process: folder of the PostgreSQL programs | /usr/lib/postgresql/15/bin |
 * | SERVICE_INSTALLER_PG_USER | local-process: user that runs PostgreSQL when the installer runs as root | postgres |
 * | SERVICE_INSTALLER_NODE_MODULES | local-process: node_modules lent to the app (the stand-in image has none) | none |
 * | SERVICE_INSTALLER_HEALTH_TIMEOUT | seconds to wait for /api/health after a start | 300 |
 * | SERVICE_INSTALLER_HEALTH_GRACE | seconds the service must stay healthy afterwards | 10 |
 * | SERVICE_INSTALLER_TEST_FAULT | tests only: `kill@<point>` or `enospc@<point>` (fault-injection.ts) | none |
 */
export function readInstallerConfig(env: NodeJS.ProcessEnv): InstallerConfig {
  let trustedKeys: TrustedKey[];
  try {
    trustedKeys = releaseTrustedKeys(
      (env.SERVICE_INSTALLER_TRUSTED_KEYS ?? '').split(','),
      'SERVICE_INSTALLER_TRUSTED_KEYS',
    );
  } catch (err) {
    if (err instanceof ReleaseKitError) throw new OperatorError(err.message, { hint: err.hint, cause: err });
    throw err;
  }
  const runtime = env.SERVICE_INSTALLER_RUNTIME?.trim() || 'docker';
  if (runtime !== 'docker' && runtime !== 'local-process') {
    throw new OperatorError(`SERVICE_INSTALLER_RUNTIME is "${runtime}"; it is docker or local-process`, {
      hint: 'Unset it for a normal installation (docker).',
    });
  }
  return {
    trustedKeys,
    runtime,
    local: {
      pgBin: env.SERVICE_INSTALLER_PG_BIN?.trim() || '/usr/lib/postgresql/15/bin',
      pgUser: env.SERVICE_INSTALLER_PG_USER?.trim() || 'postgres',
      nodeModules: env.SERVICE_INSTALLER_NODE_MODULES?.trim() || null,
      nodeBinary: process.execPath,
    },
    healthTimeoutMs: seconds(env, 'SERVICE_INSTALLER_HEALTH_TIMEOUT', 300) * 1000,
    healthGraceMs: seconds(env, 'SERVICE_INSTALLER_HEALTH_GRACE', 10) * 1000,
    engineEnv: env,
    testFault: readFault(env.SERVICE_INSTALLER_TEST_FAULT),
  };
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw))
    throw new OperatorError(`${name} is "${raw}", not a number of seconds`, {
      hint: `Unset ${name} or give seconds, e.g. ${fallback}.`,
    });
  return Number(raw);
}

function readFault(raw: string | undefined): FaultSpec | null {
  try {
    return parseFaultSpec(raw);
  } catch (err) {
    throw new OperatorError(`SERVICE_INSTALLER_TEST_FAULT: ${(err as Error).message}`, {
      hint: "It is for the installer's tests only; unset it.",
    });
  }
}
