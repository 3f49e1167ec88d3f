// Vitest global setup: one PostgreSQL server per test run. Uses TEST_DATABASE_URL when set,
// otherwise starts the embedded server in a temporary directory and removes it afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedServer, type EmbeddedServer } from '../embedded-server.ts';
import { silentLogger } from '../logger.ts';
import './create-test-databases.ts';

let server: EmbeddedServer | null = null;
let dir: string | null = null;

export async function setup(project: TestProject): Promise<void> {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    const url = new URL(external);
    url.pathname = '';
    project.provide('testDatabaseServerUrl', url.toString().replace(/\/$/, ''));
    return;
  }
  dir = mkdtempSync(path.join(tmpdir(), 'service-test-pg-'));
  server = await startEmbeddedServer({
    dataDir: dir,
    logger: silentLogger,
    lock: false,
    settings: { max_connections: '500', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
  project.provide('testDatabaseServerUrl', server.baseUrl);
}

export async function teardown(): Promise<void> {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
