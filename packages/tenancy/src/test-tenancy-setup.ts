// Test support for this package's DB-backed tests (not exported): a migrated control plane on the
// run's test server, an optional second PostgreSQL server, and cleanup of the tenant databases made.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import pg from 'pg';
import { createKnex, migrateDatabases, silentLogger, startEmbeddedServer, type EmbeddedServer } from '@service/db';
import { createTestDatabases, type TestDatabases } from '@service/db/testing';

export interface TestControlPlane {
  dbs: TestDatabases;
  controlPlane: Knex;
  shared: Knex;
  configuredTenant: Knex;
  close(): Promise<void>;
}

/** Fresh control plane, shared and configured tenant databases, migrated. */
export async function createTestControlPlane(): Promise<TestControlPlane> {
  const dbs = await createTestDatabases();
  const handles = {
    controlPlane: createKnex(dbs.urls.controlPlane, 10, 'test:control-plane'),
    shared: createKnex(dbs.urls.shared, 2, 'test:shared'),
    tenant: createKnex(dbs.urls.tenant, 5, 'test:tenant'),
  };
  await migrateDatabases(handles);
  return {
    dbs,
    controlPlane: handles.controlPlane,
    shared: handles.shared,
    configuredTenant: handles.tenant,
    async close() {
      await Promise.all(Object.values(handles).map((h) => h.destroy()));
      await dbs.drop();
    },
  };
}

/** A second PostgreSQL server in a temporary directory, for organizations on two servers. */
export async function startSecondServer(): Promise<{ server: EmbeddedServer; stop(): Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'service-tenancy-pg-'));
  const server = await startEmbeddedServer({
    dataDir: dir,
    logger: silentLogger,
    lock: false,
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
  return {
    server,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Drops databases on a server (the tenant databases a test provisioned). */
export async function dropDatabases(serverUrl: string, names: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    for (const name of names) await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  } finally {
    await client.end();
  }
}

export async function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

/**
 * The library-load stand-in: three finding templates from the "global library", upserted by global_key like
 * importGlobals.
 */
export async function loadTestLibrary(tenant: Knex): Promise<void> {
  for (const [key, title] of [
    ['sqli', 'SQL injection'],
    ['xss', 'Cross-site scripting'],
    ['tls', 'Outdated TLS configuration'],
  ] as const) {
    await tenant('finding_templates')
      .insert({ title, severity: 'high', global_key: key, global_revision: 1 })
      .onConflict('global_key')
      .merge(['title', 'global_revision']);
  }
}
