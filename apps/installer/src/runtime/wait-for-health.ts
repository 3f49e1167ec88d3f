import type { ServiceRuntime } from './service-runtime.ts';

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export type HealthOutcome = { ok: true; healthyAfterMs: number } | { ok: false; reason: string };

/**
 * Waits until /api/health answers 200 and /api/version names `expectedVersion`, then keeps
 * probing for `graceMs`: a service that answers once and then crashes (or restarts in a loop)
 * fails here, not at the first user request. Gives up after `timeoutMs` without a healthy answer,
 * and at once when the app has exited.
 *
 * "Not yet" is what 429 (a monitor used up the address's budget), 503 (a database not ready) and
 * no answer (not listening yet) mean while the service starts: only the process exiting, or the
 * timeout, is a failure. Within the grace period a 429 says nothing either way; a 503 or a
 * silence while the app still runs starts the grace period again; the app exiting, restarting or
 * disappearing fails it.
 */
export async function waitForHealth(
  runtime: ServiceRuntime,
  options: { expectedVersion: string; timeoutMs: number; graceMs: number; clock: Clock; intervalMs?: number },
): Promise<HealthOutcome> {
  const { clock } = options;
  const interval = options.intervalMs ?? 1000;
  const start = clock.now();
  let healthySince: number | null = null;
  let firstHealthy: number | null = null;
  let lastProblem = 'no answer yet';
  for (;;) {
    const app = await runtime.appState();
    if (app.state === 'exited')
      return {
        ok: false,
        reason:
          `the app ` +
          `exited${app.exitCode !== null ? ` with code ${app.exitCode}` : ''}${firstHealthy !== null ? ' after it had answered healthy' : ''}`,
      };
    if (app.state === 'restarting')
      return { ok: false, reason: 'the app crashed and is being restarted by the engine' };
    if (app.state === 'missing' && firstHealthy !== null)
      return {
        ok: false,
        reason: `the service answered healthy, then stopped within the ${Math.round(options.graceMs / 1000)} s grace period`,
      };
    const health = await runtime.probe('/api/health');
    if (health?.status === 200) {
      if (healthySince === null) {
        const version = await runtime.probe('/api/version');
        const reported = version?.status === 200 ? safeVersion(version.body) : null;
        if (reported === options.expectedVersion) {
          healthySince = clock.now();
          firstHealthy ??= healthySince;
        } else if (version?.status === 429) lastProblem = '/api/version answers 429 (rate limited)';
        else lastProblem = `the service answers version ${reported ?? 'unknown'}, not ${options.expectedVersion}`;
      }
      if (healthySince !== null && clock.now() - healthySince >= options.graceMs)
        return { ok: true, healthyAfterMs: (firstHealthy ?? healthySince) - start };
    } else if (health?.status === 429) {
      lastProblem = '/api/health answers 429 (rate limited)';
    } else {
      if (healthySince !== null) {
        healthySince = null;
        lastProblem =
          `the service answered healthy, then ` +
          `${health ? `/api/health answered ${health.status}` : 'stopped answering'}`;
      } else {
        lastProblem = health
          ? `/api/health answers ${health.status}: ${health.body.slice(0, 200)}`
          : 'the service does not answer';
      }
    }
    if (healthySince === null && clock.now() - start >= options.timeoutMs) {
      return { ok: false, reason: `not healthy after ${Math.round(options.timeoutMs / 1000)} s: ${lastProblem}` };
    }
    await clock.sleep(interval);
  }
}

function safeVersion(body: string): string | null {
  try {
    const v = (JSON.parse(body) as { version?: unknown }).version;
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}
