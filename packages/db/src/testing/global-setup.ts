// Vitest global setup: one PostgreSQL server per test run, shared by every lane (project) that
// lists this file. Uses TEST_DATABASE_URL when set, otherwise starts the embedded server in a
// temporary directory and removes it after the last lane that uses it is done.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedServer } from '../embedded-server.ts';
import { silentLogger } from '../logger.ts';
import './create-test-databases.ts';

interface SharedServer {
  baseUrl: Promise<string>;
  users: number;
  stop(): Promise<void>;
}

// Why on globalThis: vitest loads a global setup file once per project, so module state is not
// shared between the lanes of one run; the main process is.
const SHARED = Symbol.for('service.test-database-server');
type WithServer = typeof globalThis & { [SHARED]?: SharedServer };

function startServer(): SharedServer {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    const url = new URL(external);
    url.pathname = '';
    return { baseUrl: Promise.resolve(url.toString().replace(/\/$/, '')), users: 0, async stop() {} };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'service-test-pg-'));
  const server = startEmbeddedServer({
    dataDir: dir,
    logger: silentLogger,
    lock: false,
    settings: { max_connections: '500', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
  return {
    baseUrl: server.then((s) => s.baseUrl),
    users: 0,
    async stop() {
      await (await server).stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const global = globalThis as WithServer;
  const shared = (global[SHARED] ??= startServer());
  shared.users++;
  project.provide('testDatabaseServerUrl', await shared.baseUrl);
  return async () => {
    if (--shared.users > 0) return;
    delete global[SHARED];
    await shared.stop();
  };
}
