import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { DATABASE_NAMES } from '../database-names.ts';
import { ensureDatabase, type DatabaseUrls } from '../open-databases.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabaseServerUrl: string;
  }
}

export interface TestDatabases {
  urls: DatabaseUrls;
  /** Base server URL (no database), for tests that need to administer the server. */
  serverUrl: string;
  drop(): Promise<void>;
}

/** How often this worker's tests asked for the test server, for the lane check (`@service/test-lanes`). */
export const testDatabaseUse = { count: 0 };

/**
 * The base URL (no database) of the test run's PostgreSQL server. Only the lanes that have one
 * (files named *.db.test.ts, *.process.test.ts, *.browser.test.ts) may ask; the unit lane has none.
 */
export function testDatabaseServerUrl(): string {
  const url = inject('testDatabaseServerUrl');
  if (!url)
    throw new Error(
      'This test uses the database, but its lane has none: name the file *.db.test.ts (the unit lane, ' +
        '*.test.ts, starts no PostgreSQL)',
    );
  testDatabaseUse.count++;
  return url;
}

const SUFFIX = { controlPlane: 'control_plane', shared: 'shared', tenant: 'tenant' } as const;

const urlsOf = (serverUrl: string, prefix: string) =>
  Object.fromEntries(DATABASE_NAMES.map((n) => [n, `${serverUrl}/${prefix}_${SUFFIX[n]}`])) as DatabaseUrls;

/** Runs `work` on a connection to the server's `postgres` database. */
async function withServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A set of three template databases for this test server, prepared once by `prepare` (migrated,
 * seeded) and named by `key`, which must change whenever what `prepare` writes would. Test files
 * running at once wait for the one that prepares it; later ones find it done.
 */
export async function ensureTemplateDatabases(
  key: string,
  prepare: (urls: DatabaseUrls) => Promise<void>,
): Promise<string> {
  const serverUrl = testDatabaseServerUrl();
  const prefix = `tpl_${key}`;
  const done = (client: pg.Client) =>
    client
      .query(
        `select 1 from pg_database d join pg_shdescription s on s.objoid = d.oid where d.datname = $1 and s.description = 'prepared'`,
        [`${prefix}_${SUFFIX.tenant}`],
      )
      .then((r) => r.rowCount === 1);
  return withServer(serverUrl, async (client) => {
    if (await done(client)) return prefix;
    // Why a lock: the test files of one run start at once; one prepares, the others wait for it.
    await client.query('select pg_advisory_lock(hashtext($1))', [prefix]);
    try {
      if (await done(client)) return prefix;
      for (const n of DATABASE_NAMES)
        await client.query(`drop database if exists ${pg.escapeIdentifier(`${prefix}_${SUFFIX[n]}`)} with (force)`);
      const urls = urlsOf(serverUrl, prefix);
      for (const n of DATABASE_NAMES) await ensureDatabase(urls[n]);
      await prepare(urls);
      await client.query(`comment on database ${pg.escapeIdentifier(`${prefix}_${SUFFIX.tenant}`)} is 'prepared'`);
      return prefix;
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [prefix]);
    }
  });
}

/**
 * Fresh control plane, shared and tenant databases for one test file: empty, or copies of the
 * template databases named by `template` (from `ensureTemplateDatabases`).
 */
export async function createTestDatabases(options: { template?: string } = {}): Promise<TestDatabases> {
  const serverUrl = testDatabaseServerUrl();
  const prefix = `t_${randomBytes(5).toString('hex')}`;
  const urls = urlsOf(serverUrl, prefix);
  if (options.template) {
    const template = options.template;
    await withServer(serverUrl, async (client) => {
      for (const n of DATABASE_NAMES)
        await client.query(
          `create database ${pg.escapeIdentifier(`${prefix}_${SUFFIX[n]}`)} template ${pg.escapeIdentifier(`${template}_${SUFFIX[n]}`)}`,
        );
    });
  } else {
    for (const n of DATABASE_NAMES) await ensureDatabase(urls[n]);
  }
  return {
    urls,
    serverUrl,
    async drop() {
      await withServer(serverUrl, async (client) => {
        for (const n of DATABASE_NAMES)
          await client.query(`drop database if exists ${pg.escapeIdentifier(`${prefix}_${SUFFIX[n]}`)} with (force)`);
      });
    },
  };
}
