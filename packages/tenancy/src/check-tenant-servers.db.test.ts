import { createServer } from 'node:net';
import { testDatabaseServerUrl } from '@service/db/testing';
import { describe, expect, it } from 'vitest';
import { checkTenantServers } from './check-tenant-servers.ts';

describe('checkTenantServers', () => {
  it('answers ok or a short reason per server, never a password or host', async () => {
    const live = testDatabaseServerUrl();
    const wrongPassword = new URL(live);
    wrongPassword.password = 'not-the-password-4711';
    // A port that accepts and never answers: the check must give up within its timeout.
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const silentPort = (silent.address() as { port: number }).port;
    try {
      const result = await checkTenantServers(
        [
          { name: 'eu1', url: live },
          { name: 'eu2', url: wrongPassword.toString() },
          { name: 'eu3', url: 'postgres://u:secret-4711@127.0.0.1:1' },
          { name: 'eu4', url: `postgres://u:secret-4711@127.0.0.1:${silentPort}` },
        ],
        500,
      );
      expect(result.ok).toBe(false);
      expect(result.servers.eu1).toBe('ok');
      expect(result.servers.eu2).toBe('authentication failed');
      expect(result.servers.eu3).toBe('connection refused');
      expect(result.servers.eu4).toMatch(/timed out/);
      expect(JSON.stringify(result)).not.toMatch(/4711|127\.0\.0\.1/);
      expect((await checkTenantServers([{ name: 'eu1', url: live }], 2_000)).ok).toBe(true);
    } finally {
      silent.close();
    }
  });
});
