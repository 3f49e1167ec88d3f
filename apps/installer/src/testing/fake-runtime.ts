import { readFileSync, writeFileSync } from 'node:fs';
import type { ManifestImage } from '@service/release-kit';
import type { AppState, ContainerState, EngineCheck, ServiceRuntime, UpOptions } from '../runtime/service-runtime.ts';
import type { Clock } from '../runtime/wait-for-health.ts';

/** A database of the fake engine: what the installer reads of it, and a marker for "the data". */
export interface FakeDatabase {
  /** The control plane's recorded version (installation row); null elsewhere. */
  version: string | null;
  /** The last migration. */
  head: string;
  /** Stands for the rows: tests check a restore brought back the data of the backup. */
  data: string;
}

/**
 * A runtime in memory for unit tests: records calls, and each behaviour can be replaced. With
 * `databases` filled it also plays a small engine: the app migrates the databases it starts on
 * (`migrations`), dumps and restores carry the data, renames and drops work, so the tests can
 * crash an upgrade or restore anywhere and check what `recover` makes of it.
 */
export class FakeRuntime implements ServiceRuntime {
  readonly kind = 'local-process' as const;
  calls: string[] = [];
  images = new Set<string>();
  appVersion: string | null = null;
  runningVersion: string | null = null;
  healthy = true;
  appExited = false;
  sqlAnswers = new Map<string, string>();
  failOn = new Set<string>();
  /** Version the app runs after `up()` (what .env says, normally). */
  nextVersion: () => string | null = () => this.appVersion;
  /** The databases, by PostgreSQL name; empty: every SQL answers '' (or from sqlAnswers). */
  databases = new Map<string, FakeDatabase>();
  /** Per version: the schema head each database has once that version has started (migrated). */
  migrations = new Map<string, Record<string, string>>();
  /** Per version: how its app behaves when started. */
  startBehaviour = new Map<string, 'ok' | 'exit-before-migrating' | 'exit-after-migrating' | 'starting'>();
  /** Environment given to the last `up()` for the first start only (the first administrator). */
  lastUpOptions: UpOptions | null = null;
  /** Probes answered 429 before the normal answers come back (a monitor using up the budget). */
  throttledProbes = 0;
  engineVersions: EngineCheck['versions'] = null;

  private record(call: string): void {
    this.calls.push(call);
    for (const f of this.failOn) if (call.startsWith(f)) throw new Error(`${call} failed (test)`);
  }

  describe(): string {
    return 'fake runtime';
  }
  async checkEngine(): Promise<EngineCheck> {
    return { ok: true, detail: 'fake engine', versions: this.engineVersions };
  }
  async imageStoreDir(): Promise<string> {
    return '/tmp';
  }
  async hasImage(image: ManifestImage): Promise<boolean> {
    return this.images.has(image.digest);
  }
  async loadImage(
    _archive: string,
    image: ManifestImage,
    onBytes: (done: number, total: number) => void,
  ): Promise<void> {
    this.record(`load ${image.name}:${image.tag}`);
    onBytes(image.bytes, image.bytes);
    this.images.add(image.digest);
  }
  async up(options: UpOptions = {}): Promise<void> {
    this.record('up');
    this.lastUpOptions = options;
    const version = this.nextVersion();
    if (version === null || version === this.runningVersion) {
      this.runningVersion = version;
      return;
    }
    this.appExited = false;
    const behaviour = this.startBehaviour.get(version) ?? 'ok';
    if (behaviour === 'exit-before-migrating') {
      this.runningVersion = version;
      this.appExited = true;
      return;
    }
    this.migrate(version);
    this.runningVersion = version;
    if (behaviour === 'exit-after-migrating') this.appExited = true;
    this.healthy = behaviour !== 'starting';
  }
  async startDatabase(): Promise<void> {
    this.record('start db');
  }
  async stopApp(): Promise<void> {
    this.record('stop app');
    this.runningVersion = null;
    this.appExited = false;
  }
  async stopAll(): Promise<void> {
    this.record('stop all');
    this.runningVersion = null;
  }
  async containers(): Promise<ContainerState[]> {
    return [
      {
        service: 'app',
        state: this.runningVersion ? 'running' : 'exited',
        health: this.healthy ? 'healthy' : 'unhealthy',
      },
    ];
  }
  async appState(): Promise<AppState> {
    if (this.appExited) return { state: 'exited', exitCode: 3 };
    return this.runningVersion ? { state: 'running', exitCode: null } : { state: 'missing', exitCode: null };
  }
  async probe(pathname: string): Promise<{ status: number; body: string } | null> {
    if (!this.runningVersion || this.appExited) return null;
    if (this.throttledProbes > 0) {
      this.throttledProbes--;
      return { status: 429, body: '{"error":{"code":"rate_limited"}}' };
    }
    if (pathname === '/api/version') return { status: 200, body: JSON.stringify({ version: this.runningVersion }) };
    return this.healthy ? { status: 200, body: '{"status":"ok"}' } : { status: 503, body: '{"status":"degraded"}' };
  }
  async dumpDatabase(database: string, file: string, onBytes: (bytes: number) => void): Promise<void> {
    this.record(`dump ${database}`);
    const db = this.databases.get(database);
    writeFileSync(file, `PGDMP fake ${database}\n${db ? JSON.stringify(db) : ''}`);
    onBytes(20);
  }
  async listDump(file: string): Promise<number> {
    this.record(`list ${file.split('/').pop()}`);
    return 1;
  }
  async sql(database: string, statement: string): Promise<string> {
    this.record(`sql ${database}: ${statement}`);
    for (const [match, answer] of this.sqlAnswers) if (statement.includes(match)) return answer;
    if (this.databases.size === 0) return '';
    return this.runSql(database, statement);
  }
  async restoreDump(file: string, database: string): Promise<void> {
    this.record(`restore ${file.split('/').pop()} -> ${database}`);
    if (this.databases.size === 0) return;
    if (this.databases.has(database)) throw new Error(`createdb: database "${database}" already exists`);
    const json = readFileSync(file, 'utf8').split('\n')[1] ?? '';
    this.databases.set(database, json ? (JSON.parse(json) as FakeDatabase) : { version: null, head: '', data: '' });
  }
  async requestGlobalsImport(): Promise<void> {
    this.record('request globals import');
  }
  async appLogTail(): Promise<string> {
    return '';
  }

  private migrate(version: string): void {
    const heads = this.migrations.get(version);
    if (!heads) return;
    for (const [name, head] of Object.entries(heads)) {
      const db = this.databases.get(name);
      if (db) db.head = head;
    }
    const controlPlane = this.databases.get('service_control_plane');
    if (controlPlane) controlPlane.version = version;
  }

  /** The few statements the installer runs, as PostgreSQL would answer them. */
  private runSql(database: string, statement: string): string {
    const db = this.databases.get(database);
    if (/from installation where id = 1/.test(statement)) return `${db?.version ?? ''}\n`;
    if (/from knex_migrations/.test(statement)) return `${db?.head ?? ''}\n`;
    if (/pg_database_size/.test(statement)) return '1000\n';
    if (/select datname from pg_database/.test(statement))
      return `${[...this.databases.keys(), 'postgres', 'template0', 'template1'].join('\n')}\n`;
    const renames = [...statement.matchAll(/alter database (\w+) rename to (\w+)/g)];
    if (renames.length > 0) {
      // One transaction: all renames or none.
      const next = new Map(this.databases);
      for (const [, from, to] of renames) {
        const value = next.get(from!);
        if (!value || next.has(to!)) throw new Error(`psql: cannot rename ${from} to ${to}`);
        next.delete(from!);
        next.set(to!, value);
      }
      this.databases = next;
      return '';
    }
    for (const [, name] of statement.matchAll(/drop database if exists (\w+)/g)) this.databases.delete(name!);
    return '';
  }
}

/** A clock that advances only when slept on. */
export function fakeClock(start = Date.parse('2026-11-23T10:00:00Z')): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}
