import { describe, expect, it } from 'vitest';
import { parseTenantServers, redactUrl, tenantDatabaseUrl, withDefaultTenantServer } from './tenant-servers.ts';
import { tenantDatabaseName } from './tenant-database-name.ts';

function errorOf(raw: string): string {
  try {
    parseTenantServers(raw);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
}

describe('parseTenantServers', () => {
  it('reads name=url pairs separated by commas or new lines', () => {
    expect(parseTenantServers('eu1=postgres://u:p@db1:5432, eu2=postgresql://u:p%2Cq@db2:5433/\n')).toEqual([
      { name: 'eu1', url: 'postgres://u:p@db1:5432' },
      { name: 'eu2', url: 'postgresql://u:p%2Cq@db2:5433' },
    ]);
    expect(parseTenantServers('')).toEqual([]);
    expect(parseTenantServers('eu1=postgres://u:p@db1?sslmode=require')[0]!.url).toBe(
      'postgres://u:p@db1?sslmode=require',
    );
  });

  it('names the entry and the rule, and never repeats a password', () => {
    const secret = 's3cretPW';
    const cases: Array<[string, RegExp]> = [
      [`postgres://u:${secret}@db1`, /entry 1 has no name/],
      [`EU=postgres://u:${secret}@db1`, /server name "EU" must start with a lower-case letter/],
      [`default=postgres://u:${secret}@db1`, /"default" is reserved/],
      [`eu1=postgres://u:${secret}@db1,eu1=postgres://u:${secret}@db2`, /"eu1" appears twice/],
      [`eu1=mysql://u:${secret}@db1`, /server "eu1": expected a postgres:\/\/ URL, got the scheme mysql:/],
      [`eu1=postgres://u:${secret}@db1/service`, /server "eu1": the URL names a database \(\/service\)/],
      [
        `eu1=postgres://u:${secret}@db1:5432,eu2=postgres://v:${secret}@db1:5432`,
        /servers "eu1" and "eu2" point at the same host and port \(db1:5432\)/,
      ],
      [`eu1=postgres://u:${secret}@db1,eu2=not a url ${secret}`, /server "eu2": the value is not a URL/],
      // A raw comma in a password splits the entry; the message says how to write one.
      [`eu1=postgres://u:pa,ss${secret}@db1`, /server "eu1": the value is not a URL \(percent-encode , = and @/],
    ];
    for (const [raw, expected] of cases) {
      const message = errorOf(raw);
      expect(message).toMatch(expected);
      expect(message).not.toContain(secret);
      expect(message).toContain('expected TENANT_SERVERS=');
    }
  });
});

describe('tenant database URLs', () => {
  it('adds default from the configured tenant database and puts the database name on the server URL', () => {
    const servers = withDefaultTenantServer(
      parseTenantServers('eu1=postgres://u:p@db1:5432'),
      'postgres://a:b@local:5999/service_tenant',
    );
    expect(servers.map((s) => s.name)).toEqual(['default', 'eu1']);
    expect(tenantDatabaseUrl(servers, 'default', 'tenant_x')).toBe('postgres://a:b@local:5999/tenant_x');
    expect(tenantDatabaseUrl(servers, 'eu1', 'tenant_y')).toBe('postgres://u:p@db1:5432/tenant_y');
    expect(() => tenantDatabaseUrl(servers, 'us1', 'tenant_y')).toThrow(
      /"us1" is not configured; TENANT_SERVERS names "eu1"/,
    );
  });

  it('derives a plain database name from the organization id only', () => {
    expect(tenantDatabaseName('0B7C3E1A-1234-4ABC-8DEF-0123456789AB')).toBe('tenant_0b7c3e1a12344abc8def0123456789ab');
    expect(() => tenantDatabaseName("x'; drop database y; --")).toThrow(/is not a UUID/);
  });

  it('redacts passwords', () => {
    expect(redactUrl('postgres://u:secret@db1:5432/x')).toBe('postgres://u:***@db1:5432/x');
  });
});
