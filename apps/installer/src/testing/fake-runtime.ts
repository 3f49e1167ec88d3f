import { writeFileSync } from 'node:fs';
import type { ManifestImage } from '@service/release-kit';
import type { AppState, ContainerState, EngineCheck, ServiceRuntime } from '../runtime/service-runtime.ts';
import type { Clock } from '../runtime/wait-for-health.ts';

/** A runtime in memory for unit tests: records calls, and each behaviour can be replaced. */
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

  private record(call: string): void {
    this.calls.push(call);
    for (const f of this.failOn) if (call.startsWith(f)) throw new Error(`${call} failed (test)`);
  }

  describe(): string {
    return 'fake runtime';
  }
  async checkEngine(): Promise<EngineCheck> {
    return { ok: true, detail: 'fake engine' };
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
  async up(): Promise<void> {
    this.record('up');
    this.runningVersion = this.nextVersion();
  }
  async startDatabase(): Promise<void> {
    this.record('start db');
  }
  async stopApp(): Promise<void> {
    this.record('stop app');
    this.runningVersion = null;
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
    if (pathname === '/api/version') return { status: 200, body: JSON.stringify({ version: this.runningVersion }) };
    return this.healthy ? { status: 200, body: '{"status":"ok"}' } : { status: 503, body: '{"status":"degraded"}' };
  }
  async dumpDatabase(database: string, file: string, onBytes: (bytes: number) => void): Promise<void> {
    this.record(`dump ${database}`);
    writeFileSync(file, `PGDMP fake ${database}\n`);
    onBytes(20);
  }
  async listDump(file: string): Promise<number> {
    this.record(`list ${file.split('/').pop()}`);
    return 1;
  }
  async sql(database: string, statement: string): Promise<string> {
    this.record(`sql ${database}: ${statement}`);
    for (const [match, answer] of this.sqlAnswers) if (statement.includes(match)) return answer;
    return '';
  }
  async restoreDump(file: string, database: string): Promise<void> {
    this.record(`restore ${file.split('/').pop()} -> ${database}`);
  }
  async requestGlobalsImport(): Promise<void> {
    this.record('request globals import');
  }
  async appLogTail(): Promise<string> {
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
