import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestApp } from './start-test-app.ts';

export const ROOT = path.resolve(import.meta.dirname, '../../../..');

/** The database settings of a test app, for another process on the same databases. */
export function databaseEnv(app: TestApp): Record<string, string> {
  return {
    CONTROL_PLANE_DATABASE_URL: app.databases.urls.controlPlane,
    SHARED_DATABASE_URL: app.databases.urls.shared,
    TENANT_DATABASE_URL: app.databases.urls.tenant,
  };
}

/** `npm run admin -- <args>` with exactly `env` (and PATH). */
export function runAdmin(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'apps/api/src/admin/main.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output(): string;
}

/** Starts `apps/api/src/main.ts` on a free port with `env`; resolves once it listens. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_IP: '1000000',
      RATE_LIMIT_PER_KEY: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const m = /"event":"listening","port":(\d+)/.exec(out);
    if (m) return { child, url: `http://127.0.0.1:${m[1]}`, output: () => out };
    if (child.exitCode !== null) throw new Error(`service exited: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`service did not start: ${out}`);
}

/** Stops a service process (SIGTERM, then waits for it to exit). */
export async function stopServiceProcess(
  p: ServiceProcess | undefined,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill(signal);
  await exited;
}
