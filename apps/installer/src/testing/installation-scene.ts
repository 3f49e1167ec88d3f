import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import {
  LIBRARY_MANIFEST_FILE,
  SUMS_FILE,
  serializeLibraryManifestFile,
  type PackageManifest,
} from '@service/release-kit';
import {
  createTestFolder,
  createTestSigningKey,
  writeTestPackage,
  type TestFolder,
} from '@service/release-kit/testing';
import { parseEnvFile } from '../install-dir/env-file.ts';
import { DATABASES } from '../install-dir/install-layout.ts';
import { releaseUnits, swapReleaseFiles } from '../install-dir/release-files.ts';
import { createInstallerContext, type InstallerContext } from '../installer-context.ts';
import { readInstallerConfig } from '../installer-config.ts';
import { NO_FAULTS, type FaultInjector } from '../journal/fault-injection.ts';
import type { Prompt } from '../ui/prompt.ts';
import { fakeClock, FakeRuntime } from './fake-runtime.ts';

/** The schema head each database has once `version` has started: every release migrates. */
export function headsOf(version: string): Record<'controlPlane' | 'shared' | 'tenant', string> {
  const n = version.replace(/\./g, '');
  return {
    controlPlane: `2026112${n.length}${n.padStart(7, '0')}_cp_${version}`,
    shared: `2026112${n.length}${n.padStart(7, '0')}_shared_${version}`,
    tenant: `2026112${n.length}${n.padStart(7, '0')}_tenant_${version}`,
  };
}

export interface SceneRun {
  /** 'done' (ended), 'failed' (an OperatorError), or 'killed' (stopped at the fault point). */
  outcome: 'done' | 'failed' | 'killed';
  error: OperatorError | null;
  screen: string;
}

/**
 * An installation on the fake engine, with signed packages of several versions, for running
 * the installer's commands in this process: `run` runs one the way install.sh would, with
 * scripted answers and, optionally, a crash (the run stops dead at a journal point, as after
 * `kill -9`). The engine's state (`runtime`) and the installation directory survive the crash.
 */
export class InstallationScene {
  readonly folder: TestFolder;
  readonly home: string;
  readonly runtime = new FakeRuntime();
  readonly clock = fakeClock();
  readonly key = createTestSigningKey();
  private readonly packages = new Map<string, string>();

  constructor() {
    this.folder = createTestFolder('scene-', { inMemory: true });
    this.home = this.folder.path('opt-service');
    // The app runs the version .env names, as compose does.
    this.runtime.nextVersion = () =>
      parseEnvFile(readFileSync(path.join(this.home, '.env'), 'utf8')).values.get('SERVICE_VERSION') ?? null;
  }

  /** The extracted, signed package of `version` (library items: `library`, kind/key/revision). */
  async pkg(version: string, library: Array<{ kind: string; key: string; revision: string }> = []): Promise<string> {
    const existing = this.packages.get(version);
    if (existing) return existing;
    const heads = headsOf(version);
    const dir = await writeTestPackage(this.folder, {
      version,
      signWith: this.key,
      files: {
        'docker/postgres-init/10-create-databases.sql': '-- databases\n',
        [LIBRARY_MANIFEST_FILE]: serializeLibraryManifestFile({ version: `lib-${version}`, items: library }),
      },
      manifest: { schemaHeads: heads, library: { version: `lib-${version}`, items: library.length } },
    });
    this.packages.set(version, dir);
    this.runtime.migrations.set(version, {
      service_control_plane: heads.controlPlane,
      service_shared: heads.shared,
      service_tenant: heads.tenant,
    });
    return dir;
  }

  /** Makes `home` an installation of `version` that runs, with data in its databases and file storage. */
  async install(version: string, data = 'data written before the upgrade'): Promise<void> {
    const dir = await this.pkg(version);
    const units = releaseUnits(readFileSync(path.join(dir, SUMS_FILE), 'utf8'));
    await swapReleaseFiles({
      home: this.home,
      packageDir: dir,
      plan: { replace: units, remove: [] },
      previousDir: path.join(this.home, '.previous-none'),
      stagingName: `.staging-${version}`,
    });
    this.folder.write({
      'opt-service/.env': `# settings\nSERVICE_HOSTNAME=reports.example.com\nSERVICE_VERSION=${version}\nPOSTGRES_PASSWORD=secret\n`,
      'opt-service/docker/Caddyfile': 'operator proxy\n',
      'opt-service/docker/certs/cert.pem': 'operator cert\n',
      'opt-service/compose.override.yaml': 'operator override\n',
      'opt-service/data/app/files/t1/evidence.png': 'evidence\n',
    });
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as PackageManifest;
    for (const image of manifest.images) this.runtime.images.add(image.digest);
    const heads = headsOf(version);
    for (const db of DATABASES)
      this.runtime.databases.set(db.name, {
        version: db.key === 'controlPlane' ? version : null,
        head: heads[db.key],
        data,
      });
    this.runtime.runningVersion = version;
  }

  /** Changes what the databases hold (writes after a backup). */
  write(data: string): void {
    for (const db of this.runtime.databases.values()) db.data = data;
  }

  context(options: {
    faults?: FaultInjector;
    answers?: boolean[];
    cwd?: string;
    screen: { text: string };
  }): InstallerContext {
    const answers = [...(options.answers ?? [])];
    const prompt: Prompt = {
      interactive: false,
      close() {},
      async confirm(question, defaultAnswer) {
        const answer = answers.length > 0 ? answers.shift()! : defaultAnswer;
        options.screen.text += `${question} -> ${answer ? 'yes' : 'no'}\n`;
        return answer;
      },
    };
    return createInstallerContext({
      config: {
        ...readInstallerConfig({ SERVICE_INSTALLER_TRUSTED_KEYS: this.key.publicBase64 }),
        healthTimeoutMs: 30_000,
        healthGraceMs: 3_000,
      },
      output: { write: (t) => (options.screen.text += t), isTTY: false },
      prompt,
      cwd: options.cwd ?? this.folder.dir,
      clock: this.clock,
      runtimeFactory: () => this.runtime,
      isProcessAlive: () => false,
      faults: options.faults ?? NO_FAULTS,
    });
  }

  /** Runs a command; with `killAt`, the run stops dead once the journal has recorded that point. */
  async run(
    command: { run(ctx: InstallerContext, input: never): void | Promise<void> },
    input: Record<string, unknown>,
    options: { cwd?: string; answers?: boolean[]; killAt?: string; faults?: FaultInjector } = {},
  ): Promise<SceneRun> {
    const screen = { text: '' };
    let killed!: () => void;
    const reachedKill = new Promise<void>((resolve) => (killed = resolve));
    const faults: FaultInjector = options.killAt
      ? {
          reached: async (point) => {
            if (point !== options.killAt) return;
            killed();
            await new Promise<never>(() => {});
          },
          beforeWrite: () => {},
        }
      : (options.faults ?? NO_FAULTS);
    const ctx = this.context({ faults, answers: options.answers, cwd: options.cwd, screen });
    const running = Promise.resolve(command.run(ctx, { home: this.home, ...input } as never)).then(
      () => ({ outcome: 'done' as const, error: null }),
      (err: unknown) => {
        if (err instanceof OperatorError) return { outcome: 'failed' as const, error: err };
        throw err;
      },
    );
    const result = await Promise.race([running, reachedKill.then(() => ({ outcome: 'killed' as const, error: null }))]);
    this.clock.advance(60_000);
    return { ...result, screen: screen.text };
  }

  read(relative: string): string {
    return readFileSync(path.join(this.home, relative), 'utf8');
  }

  installedVersion(): string | null {
    return parseEnvFile(this.read('.env')).values.get('SERVICE_VERSION') ?? null;
  }

  /** The version whose release files are in place (its manifest.json). */
  releaseVersion(): string {
    return (JSON.parse(this.read('manifest.json')) as { version: string }).version;
  }

  remove(): void {
    this.folder.remove();
  }
}
