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

const SUFFIX = { controlPlane: 'control_plane', shared: 'shared', tenant: 'tenant' } as const;

/** Fresh, empty control plane, shared and tenant databases for one test file. */
export async function createTestDatabases(): Promise<TestDatabases> {
  const serverUrl = inject('testDatabaseServerUrl');
  const prefix = `t_${randomBytes(5).toString('hex')}`;
  const urls = Object.fromEntries(
    DATABASE_NAMES.map((n) => [n, `${serverUrl}/${prefix}_${SUFFIX[n]}`]),
  ) as DatabaseUrls;
  for (const n of DATABASE_NAMES) await ensureDatabase(urls[n]);
  return {
    urls,
    serverUrl,
    async drop() {
      const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
      await client.connect();
      try {
        for (const n of DATABASE_NAMES) {
          await client.query(`drop database if exists ${pg.escapeIdentifier(`${prefix}_${SUFFIX[n]}`)} with (force)`);
        }
      } finally {
        await client.end();
      }
    },
  };
}
