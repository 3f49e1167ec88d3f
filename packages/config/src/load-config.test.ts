import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, deriveDatabaseUrls, loadConfig } from './index.ts';

const noFile = { envFile: null, cwd: '/srv/app' };

describe('loadConfig', () => {
  it('has working defaults for a fresh machine (embedded database)', () => {
    const c = loadConfig({}, noFile);
    expect(c.port).toBe(3000);
    expect(c.dataDir).toBe('/srv/app/data');
    expect(c.filesDir).toBe('/srv/app/data/files');
    expect(c.databaseUrls).toBeNull();
    expect(c.databaseSource).toBe('embedded');
    expect(c.edition).toBe('self-hosted');
    expect(c.logLevel).toBe('info');
    expect(c.trustProxy).toEqual([]);
    expect(c.corsAllowedOrigins).toEqual([]);
    expect(c.dbAcquireTimeoutMs).toBe(5_000);
    expect(c.dbStatementTimeoutMs).toBe(15_000);
    expect(c.uploadTmpDir).toBe(tmpdir());
  });

  it('reads the CORS origins: a list of origins, or * alone', () => {
    expect(
      loadConfig({ CORS_ALLOWED_ORIGINS: 'https://App.example.com, http://localhost:5173/' }, noFile)
        .corsAllowedOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: '*' }, noFile).corsAllowedOrigins).toEqual(['*']);
    expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: 'https://app.example.com/path' }, noFile)).toThrow(
      /CORS_ALLOWED_ORIGINS: "https:\/\/app.example.com\/path" is not an origin/,
    );
    expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: '*, https://a.example' }, noFile)).toThrow(
      /CORS_ALLOWED_ORIGINS: use either \* alone/,
    );
    expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: 'ftp://a.example' }, noFile)).toThrow(/CORS_ALLOWED_ORIGINS/);
  });

  it('names the bad setting and not its value', () => {
    expect(() => loadConfig({ PORT: 'abc' }, noFile)).toThrow(/Invalid setting PORT: expected a whole number/);
    expect(() => loadConfig({ SERVICE_EDITION: 'cloud' }, noFile)).toThrow(
      /SERVICE_EDITION: expected one of self-hosted, hosted/,
    );
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.1, nope' }, noFile)).toThrow(/TRUST_PROXY/);
    try {
      loadConfig({ DATABASE_URL: 'mysql://root:hunter2@db/x' }, noFile);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).setting).toBe('DATABASE_URL');
      expect((err as Error).message).not.toContain('hunter2');
    }
  });

  it('derives three databases from DATABASE_URL', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/acme' }, noFile);
    expect(c.databaseSource).toBe('DATABASE_URL');
    expect(c.databaseUrls).toEqual({
      controlPlane: 'postgres://u:p@db:5432/acme_control_plane',
      shared: 'postgres://u:p@db:5432/acme_shared',
      tenant: 'postgres://u:p@db:5432/acme_tenant',
    });
    expect(deriveDatabaseUrls('postgres://db/').tenant).toBe('postgres://db/service_tenant');
  });

  it('requires all three separate URLs or none', () => {
    expect(() => loadConfig({ TENANT_DATABASE_URL: 'postgres://db/t' }, noFile)).toThrow(/CONTROL_PLANE_DATABASE_URL/);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://db/a', SHARED_DATABASE_URL: 'postgres://db/s' }, noFile),
    ).toThrow(/not both/);
    const c = loadConfig(
      {
        CONTROL_PLANE_DATABASE_URL: 'postgres://db/c',
        SHARED_DATABASE_URL: 'postgres://db/s',
        TENANT_DATABASE_URL: 'postgres://db/t',
      },
      noFile,
    );
    expect(c.databaseSource).toBe('separate');
  });

  it('reads an optional .env file, with the environment taking precedence', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cfg-'));
    writeFileSync(path.join(dir, '.env'), 'PORT=4000\nLOG_LEVEL=debug\n# comment\n');
    const c = loadConfig({ LOG_LEVEL: 'warn' }, { cwd: dir });
    expect(c.port).toBe(4000);
    expect(c.logLevel).toBe('warn');
  });

  it('rejects a short first administrator password', () => {
    expect(() => loadConfig({ SERVICE_ADMIN_PASSWORD: 'short' }, noFile)).toThrow(
      /SERVICE_ADMIN_PASSWORD: must be at least 12/,
    );
  });
});
