// Vitest global setup: one PostgreSQL server per test run, shared by every lane (project) that
// lists this file. Uses TEST_DATABASE_URL when set, otherwise starts the embedded server in a
// temporary directory and removes it after the last lane that uses it is done.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { silentLogger } from '../logger.ts';
// The type of what this file provides (`testDatabaseServerUrl`) is declared there.
import type {} from './create-test-databases.ts';

interface TestServer {
  baseUrl: string;
  stop(): Promise<void>;
}

interface SharedServer {
  server: Promise<TestServer>;
  /** The lanes of this run that use it. */
  users: number;
}

// Why on globalThis: vitest loads a global setup file once per project, so module state is not
// shared between the lanes of one run; the main process is. Why the embedded server's module is
// imported only to start it: loading it has effects on the process (it replaces exit hooks),
// which must happen once.
const SHARED = Symbol.for('service.test-database-server');
type WithServer = typeof globalThis & { [SHARED]?: SharedServer };

async function startServer(): Promise<TestServer> {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    const url = new URL(external);
    url.pathname = '';
    return { baseUrl: url.toString().replace(/\/$/, ''), async stop() {} };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'service-test-pg-'));
  const { startEmbeddedServer } = await import('../embedded-server.ts');
  const server = await startEmbeddedServer({
    dataDir: dir,
    logger: silentLogger,
    lock: false,
    settings: { max_connections: '500', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
  return {
    baseUrl: server.baseUrl,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const global = globalThis as WithServer;
  global[SHARED] ??= { server: startServer(), users: 0 };
  const shared = global[SHARED];
  shared.users++;
  const server = await shared.server;
  project.provide('testDatabaseServerUrl', server.baseUrl);
  return async () => {
    if (--shared.users > 0) return;
    delete global[SHARED];
    await server.stop();
  };
}
