import type { PreflightCheck } from './preflight-check.ts';

/**
 * The oldest Docker Engine and compose plugin the release's compose.yaml works with: the app's
 * health check uses `start_interval` (Engine API 1.44, Docker Engine 25.0), which compose passes
 * on from 2.24.0.
 */
export const MIN_DOCKER_ENGINE = '25.0';
export const MIN_DOCKER_COMPOSE = '2.24.0';

/** The engine answers, with compose, in versions the release supports (install and upgrade refuse older ones). */
export const containerEngineCheck: PreflightCheck = {
  id: 'container-engine',
  title: 'container engine',
  appliesTo: ['status', 'install', 'upgrade', 'backup', 'restore', 'import-globals', 'recover', 'cleanup'],
  run({ command, engine }) {
    if (!engine.ok)
      return {
        status: 'fail',
        detail: engine.detail,
        hint: `Install Docker Engine ${MIN_DOCKER_ENGINE} or newer with the compose plugin ${MIN_DOCKER_COMPOSE} or newer, and start it.`,
      };
    if (engine.versions === null) return { status: 'pass', detail: engine.detail };
    const old = [
      olderThan(engine.versions.engine, MIN_DOCKER_ENGINE)
        ? `Docker Engine ${engine.versions.engine} (${MIN_DOCKER_ENGINE} or newer needed)`
        : null,
      olderThan(engine.versions.compose, MIN_DOCKER_COMPOSE)
        ? `compose ${engine.versions.compose} (${MIN_DOCKER_COMPOSE} or newer needed)`
        : null,
    ].filter((o): o is string => o !== null);
    if (old.length === 0) return { status: 'pass', detail: engine.detail };
    return {
      status: command === 'install' || command === 'upgrade' ? 'fail' : 'warn',
      detail: `too old: ${old.join('; ')}`,
      hint: `Update Docker (Engine ${MIN_DOCKER_ENGINE}+, compose plugin ${MIN_DOCKER_COMPOSE}+), then run the command again.`,
    };
  },
};

/**
 * Whether a version as Docker prints it (`27.3.1`, `v2.29.7`, `24.0.7+dfsg1`, `28.0.0-rc.1`) is
 * older than `minimum`, comparing the leading numbers. One that cannot be read counts as new
 * enough: refusing a working engine over its spelling would be worse.
 */
export function olderThan(version: string, minimum: string): boolean {
  const numbers = (v: string) =>
    /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/
      .exec(v.trim())
      ?.slice(1)
      .map((n) => Number(n ?? 0));
  const have = numbers(version);
  const need = numbers(minimum)!;
  if (!have) return false;
  for (let i = 0; i < 3; i++) if (have[i] !== need[i]) return have[i]! < need[i]!;
  return false;
}
