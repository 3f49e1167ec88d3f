import pg from 'pg';
import { describeDatabaseError } from '@service/db';
import type { TenantServer } from './tenant-servers.ts';

export interface TenantServerChecks {
  ok: boolean;
  /** Per server name: `ok`, or a short reason (never a host, URL or password). */
  servers: Record<string, string>;
}

async function checkOne(server: TenantServer, timeoutMs: number): Promise<string> {
  const url = new URL(server.url);
  // Why `postgres`: every server has it, and provisioning needs it anyway (CREATE DATABASE runs there).
  url.pathname = '/postgres';
  const client = new pg.Client({
    connectionString: url.toString(),
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    application_name: 'service:health',
  });
  // Why: a failed connection also emits 'error'; unhandled, it would crash the process.
  client.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`timed out after ${timeoutMs} ms`), timeoutMs);
  });
  const probe = (async () => {
    await client.connect();
    await client.query('select 1');
    return 'ok';
  })().catch((err: unknown) => describeDatabaseError(err));
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
    void client.end().catch(() => {});
  }
}

/**
 * Connects to every tenant server in parallel, each answering `ok` or a short reason within
 * `timeoutMs`: for `/api/health` in the hosted edition, which names the server that failed.
 * A fresh connection each time, so the answer is about the server, not about a pooled connection.
 */
export async function checkTenantServers(
  servers: readonly TenantServer[],
  timeoutMs: number,
): Promise<TenantServerChecks> {
  const results = await Promise.all(servers.map((s) => checkOne(s, timeoutMs)));
  return {
    ok: results.every((r) => r === 'ok'),
    servers: Object.fromEntries(servers.map((s, i) => [s.name, results[i]!])),
  };
}
