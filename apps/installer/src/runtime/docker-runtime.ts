import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { OperatorError } from '@service/cli-kit';
import { imageReference, type ManifestImage } from '@service/release-kit';
import { execa } from 'execa';
import { COMPOSE_OVERRIDE_FILE } from '@service/release-kit';
import type { AppState, ContainerState, EngineCheck, ServiceRuntime, UpOptions } from './service-runtime.ts';

export interface DockerRuntimeOptions {
  home: string;
  /** Environment for the docker command (PATH finds it; DOCKER_HOST and friends reach the engine). */
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

const DB_USER = 'service';
/** Prints `{"status":…,"body":…}` for a GET of the path given as argument, from inside the app container. */
const PROBE_SCRIPT =
  "fetch('http://127.0.0.1:3000'+process.argv[1],{signal:AbortSignal.timeout(3000)}).then(async(r)=>console.log(JSON.stringify({status:r.status,body:await " +
  '' +
  '' +
  '' +
  '' +
  '' +
  'r.text()})),()=>process.exit(3))';

/**
 * The Docker adapter: `docker compose` on the installation directory's compose.yaml (plus the
 * operator's compose.override.yaml), and `docker load`/`image inspect` for images. The only code
 * of the installer that runs the container engine. PostgreSQL's tools run inside the database
 * container, so the host needs none.
 */
export class DockerRuntime implements ServiceRuntime {
  readonly kind = 'docker' as const;

  constructor(private readonly options: DockerRuntimeOptions) {}

  describe(): string {
    return `docker compose in ${this.options.home}`;
  }

  async checkEngine(): Promise<EngineCheck> {
    const engine = await this.docker(['version', '--format', '{{.Server.Version}}'], { reject: false });
    if (engine.exitCode !== 0)
      return {
        ok: false,
        detail: `Docker does not answer: ${lastLine(engine.stderr) || 'is it installed and running?'}`,
        versions: null,
      };
    const compose = await this.docker(['compose', 'version', '--short'], { reject: false });
    if (compose.exitCode !== 0)
      return {
        ok: false,
        detail: 'the Docker compose plugin is missing (docker compose version failed)',
        versions: null,
      };
    const versions = { engine: engine.stdout.trim(), compose: compose.stdout.trim().replace(/^v/, '') };
    return { ok: true, detail: `Docker ${versions.engine} with compose ${versions.compose}`, versions };
  }

  async imageStoreDir(): Promise<string> {
    const info = await this.docker(['info', '--format', '{{.DockerRootDir}}'], { reject: false });
    const dir = info.exitCode === 0 ? info.stdout.trim() : '';
    return dir !== '' && existsSync(dir) ? dir : this.options.home;
  }

  async hasImage(image: ManifestImage): Promise<boolean> {
    const result = await this.docker(['image', 'inspect', '--format', '{{.Id}}', imageReference(image)], {
      reject: false,
    });
    return result.exitCode === 0 && result.stdout.trim() === image.digest;
  }

  async loadImage(
    archive: string,
    image: ManifestImage,
    onBytes: (done: number, total: number) => void,
  ): Promise<void> {
    const total = (await stat(archive)).size;
    let done = 0;
    const input = createReadStream(archive);
    input.on('data', (chunk) => {
      done += chunk.length;
      onBytes(done, total);
    });
    await this.docker(['load'], { input, what: `load ${archive}` });
    if (!(await this.hasImage(image))) {
      throw new OperatorError(
        `after loading ${archive}, Docker has no ${imageReference(image)} with the id ${image.digest}`,
        { hint: 'Get the package again from the vendor.' },
      );
    }
  }

  async up(options: UpOptions = {}): Promise<void> {
    // Why through the environment: compose.yaml hands these to the app from the installer's
    // environment (interpolation), so they are never written to .env.
    await this.docker([...this.composeArgs(), 'up', '--detach', '--remove-orphans'], {
      what: 'start the containers',
      extraEnv: options.firstStartEnv,
    });
  }

  async startDatabase(): Promise<void> {
    await this.compose(['up', '--detach', '--wait', 'db'], 'start the database container');
  }

  async stopApp(): Promise<void> {
    await this.compose(['stop', 'app'], 'stop the app container');
  }

  async stopAll(): Promise<void> {
    await this.compose(['stop'], 'stop the containers');
  }

  async containers(): Promise<ContainerState[]> {
    const result = await this.docker([...this.composeArgs(), 'ps', '--all', '--format', 'json'], { reject: false });
    if (result.exitCode !== 0) return [];
    return parsePsOutput(result.stdout).map((c) => ({ service: c.Service, state: c.State, health: c.Health ?? '' }));
  }

  async appState(): Promise<AppState> {
    const result = await this.docker([...this.composeArgs(), 'ps', '--all', '--format', 'json', 'app'], {
      reject: false,
    });
    const app = result.exitCode === 0 ? parsePsOutput(result.stdout).find((c) => c.Service === 'app') : undefined;
    if (!app) return { state: 'missing', exitCode: null };
    const state =
      app.State === 'running' || app.State === 'restarting'
        ? app.State
        : app.State === 'exited' || app.State === 'dead'
          ? 'exited'
          : 'missing';
    return { state, exitCode: state === 'exited' ? (app.ExitCode ?? null) : null };
  }

  async probe(pathname: string): Promise<{ status: number; body: string } | null> {
    const result = await this.docker(
      [...this.composeArgs(), 'exec', '-T', 'app', 'node', '-e', PROBE_SCRIPT, pathname],
      { reject: false },
    );
    if (result.exitCode !== 0) return null;
    try {
      return JSON.parse(result.stdout.trim()) as { status: number; body: string };
    } catch {
      return null;
    }
  }

  async dumpDatabase(database: string, file: string, onBytes: (bytes: number) => void): Promise<void> {
    const timer = setInterval(
      () =>
        void stat(file).then(
          (s) => onBytes(s.size),
          () => {},
        ),
      250,
    );
    try {
      // Why exec's exit code is enough: `docker compose exec` exits with pg_dump's code, and
      // execa writing stdout to the file fails the call if the write fails.
      await this.docker(
        [
          ...this.composeArgs(),
          'exec',
          '-T',
          'db',
          'pg_dump',
          '--format=custom',
          '--username',
          DB_USER,
          '--dbname',
          database,
        ],
        {
          stdout: { file },
          what: `dump the database ${database}`,
        },
      );
    } finally {
      clearInterval(timer);
    }
    onBytes((await stat(file)).size);
  }

  async listDump(file: string): Promise<number> {
    const result = await this.docker([...this.composeArgs(), 'exec', '-T', 'db', 'pg_restore', '--list'], {
      inputFile: file,
      what: `read the dump ${path.basename(file)}`,
    });
    return result.stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).length;
  }

  async sql(database: string, statement: string): Promise<string> {
    const commands = statement
      .split(/;\s*\n/)
      .map((s) => s.trim().replace(/;$/, ''))
      .filter((s) => s !== '')
      .flatMap((s) => ['--command', s]);
    const result = await this.docker(
      [
        ...this.composeArgs(),
        'exec',
        '-T',
        'db',
        'psql',
        '--no-align',
        '--tuples-only',
        '--set',
        'ON_ERROR_STOP=1',
        '--username',
        DB_USER,
        '--dbname',
        database,
        ...commands,
      ],
      {
        what: `run SQL on ${database}`,
      },
    );
    return result.stdout;
  }

  async restoreDump(file: string, database: string): Promise<void> {
    await this.docker([...this.composeArgs(), 'exec', '-T', 'db', 'createdb', '--username', DB_USER, database], {
      what: `create the database ${database}`,
    });
    await this.docker(
      [
        ...this.composeArgs(),
        'exec',
        '-T',
        'db',
        'pg_restore',
        '--exit-on-error',
        '--no-owner',
        '--no-privileges',
        '--username',
        DB_USER,
        '--dbname',
        database,
      ],
      {
        inputFile: file,
        what: `restore ${path.basename(file)} into ${database}`,
      },
    );
  }

  async requestGlobalsImport(): Promise<void> {
    const admin = ['node', 'apps/api/src/admin.js', 'request-globals-import'];
    const running = (await this.appState()).state === 'running';
    await this.docker(
      [...this.composeArgs(), ...(running ? ['exec', '-T', 'app'] : ['run', '--rm', '--no-deps', 'app']), ...admin],
      { what: 'ask the service to import the library' },
    );
  }

  async appLogTail(lines: number): Promise<string> {
    const result = await this.docker([...this.composeArgs(), 'logs', '--no-color', '--tail', String(lines), 'app'], {
      reject: false,
    });
    return `${result.stdout}${result.stderr}`;
  }

  /** `docker compose` with the installation's files; the override only when the operator has one. */
  private composeArgs(): string[] {
    const { home } = this.options;
    const override = path.join(home, COMPOSE_OVERRIDE_FILE);
    return [
      'compose',
      '--project-directory',
      home,
      '--project-name',
      'service',
      '--file',
      path.join(home, 'compose.yaml'),
      ...(existsSync(override) ? ['--file', override] : []),
      '--env-file',
      path.join(home, '.env'),
    ];
  }

  private async compose(args: string[], what: string): Promise<void> {
    await this.docker([...this.composeArgs(), ...args], { what });
  }

  private async docker(
    args: string[],
    options: {
      reject?: boolean;
      what?: string;
      input?: Readable;
      inputFile?: string;
      stdout?: { file: string };
      extraEnv?: Readonly<Record<string, string>>;
    } = {},
  ): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    this.options.log(`run docker ${args.join(' ')}`);
    const result = await execa('docker', args, {
      env: options.extraEnv ? { ...this.options.env, ...options.extraEnv } : this.options.env,
      // Why a process group of its own: a Ctrl-C or a dropped terminal must reach only the
      // installer, which holds it while it changes the installation, never the docker command.
      detached: true,
      reject: false,
      stripFinalNewline: false,
      ...(options.input
        ? { input: options.input }
        : options.inputFile
          ? { inputFile: options.inputFile }
          : { stdin: 'ignore' as const }),
      ...(options.stdout ? { stdout: options.stdout } : {}),
    });
    const stdout = typeof result.stdout === 'string' ? result.stdout : '';
    const stderr = typeof result.stderr === 'string' ? result.stderr : '';
    const exitCode = result.exitCode ?? 1;
    if (stderr.trim() !== '') this.options.log(`docker: ${stderr.trim()}`);
    if (exitCode !== 0 && options.reject !== false) {
      throw new OperatorError(
        `could not ${options.what ?? args.join(' ')}: ` +
          `${lastLine(stderr) || result.shortMessage || `docker exited with ${exitCode}`}`,
        {
          hint:
            'See the log file for the full output; `docker compose ps` in the installation ' +
            'directory shows the containers.',
        },
      );
    }
    return { exitCode, stdout, stderr };
  }
}

interface PsEntry {
  Service: string;
  State: string;
  Health?: string;
  ExitCode?: number;
}

/** compose 2.21+ prints one JSON object per line; older versions print one JSON array. */
export function parsePsOutput(text: string): PsEntry[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[')) return JSON.parse(trimmed) as PsEntry[];
  return trimmed.split('\n').map((line) => JSON.parse(line) as PsEntry);
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}
