import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, openSync, closeSync } from 'node:fs';
import { chown, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import * as tar from 'tar';
import { OperatorError } from '@service/cli-kit';
import { freePort, imageReference, type ManifestImage } from '@service/release-kit';
import { parseEnvFile } from '../install-dir/env-file.ts';
import { APP_DATA_DIR, FILES_DIR, LICENSE_DIR, POSTGRES_DATA_DIR } from '../install-dir/install-layout.ts';
import type { AppState, ContainerState, EngineCheck, ServiceRuntime, UpOptions } from './service-runtime.ts';

export interface LocalProcessOptions {
  home: string;
  /** Folder of initdb, pg_ctl, pg_dump, pg_restore, psql, createdb. */
  pgBin: string;
  /** Runs PostgreSQL's server programs as this user (PostgreSQL refuses to run as root). */
  pgUser: string | null;
  /** node_modules for the app: the stand-in engine's app image has none (the real image does). */
  nodeModules: string | null;
  nodeBinary: string;
  log: (line: string) => void;
}

interface AppProcessRecord {
  pid: number;
  image: string;
  digest: string;
  startedAt: string;
}

const DB_USER = 'service';

/**
 * The local-process adapter: the app from the loaded app image runs as a local Node.js process,
 * against a PostgreSQL cluster in `data/postgres` run by the local PostgreSQL programs. It stands
 * in for the container engine in the end-to-end test (INSTALLER.md "How it is tested", 3), with
 * the bind mounts of compose.yaml mapped to the same folders of the installation directory.
 */
export class LocalProcessRuntime implements ServiceRuntime {
  readonly kind = 'local-process' as const;
  private readonly runDir: string;
  private readonly imagesDir: string;
  private child: { process: ChildProcess; exitCode: number | null; exited: boolean } | null = null;

  constructor(private readonly options: LocalProcessOptions) {
    this.runDir = path.join(options.home, 'run');
    this.imagesDir = path.join(options.home, '.local-images');
  }

  describe(): string {
    return `local processes in ${this.options.home} (PostgreSQL from ${this.options.pgBin})`;
  }

  async checkEngine(): Promise<EngineCheck> {
    const missing = ['initdb', 'pg_ctl', 'pg_dump', 'pg_restore', 'psql', 'createdb'].filter(
      (p) => !existsSync(path.join(this.options.pgBin, p)),
    );
    if (missing.length > 0)
      return {
        ok: false,
        detail: `PostgreSQL programs missing in ${this.options.pgBin}: ${missing.join(', ')}`,
        versions: null,
      };
    const version = (await this.exec(path.join(this.options.pgBin, 'pg_ctl'), ['--version'])).stdout.trim();
    return { ok: true, detail: `local processes: ${version}, Node.js ${process.versions.node}`, versions: null };
  }

  async imageStoreDir(): Promise<string> {
    return this.options.home;
  }

  async hasImage(image: ManifestImage): Promise<boolean> {
    return (await this.readIndex())[imageReference(image)] === image.digest;
  }

  async loadImage(
    archive: string,
    image: ManifestImage,
    onBytes: (done: number, total: number) => void,
  ): Promise<void> {
    const total = (await stat(archive)).size;
    const work = path.join(this.imagesDir, `.loading-${image.role}`);
    await rm(work, { recursive: true, force: true });
    await mkdir(work, { recursive: true });
    let done = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, callback) {
        done += chunk.length;
        onBytes(done, total);
        callback(null, chunk);
      },
    });
    await pipeline(createReadStream(archive), counter, tar.x({ cwd: work, strict: true }));
    const manifest = JSON.parse(await readFile(path.join(work, 'manifest.json'), 'utf8')) as Array<{
      Config: string;
      RepoTags: string[];
      Layers: string[];
    }>;
    const entry = manifest.find((m) => m.RepoTags.includes(imageReference(image)));
    if (!entry)
      throw new OperatorError(`${archive} does not hold ${imageReference(image)}`, {
        hint: 'Get the package again from the vendor.',
      });
    const id = `sha256:${createHash('sha256')
      .update(await readFile(path.join(work, entry.Config)))
      .digest('hex')}`;
    if (id !== image.digest)
      throw new OperatorError(`${archive} holds image ${id}, but the manifest names ${image.digest}`, {
        hint: 'Get the package again from the vendor.',
      });
    const target = this.imageRoot(image);
    await rm(target, { recursive: true, force: true });
    await mkdir(target, { recursive: true });
    for (const layer of entry.Layers) await tar.x({ file: path.join(work, layer), cwd: target, strict: true });
    if (image.role === 'app' && this.options.nodeModules && !existsSync(path.join(target, 'app/node_modules'))) {
      await symlink(this.options.nodeModules, path.join(target, 'app/node_modules'), 'dir');
    }
    await rm(work, { recursive: true, force: true });
    const index = await this.readIndex();
    index[imageReference(image)] = image.digest;
    await writeFile(path.join(this.imagesDir, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  }

  async up(options: UpOptions = {}): Promise<void> {
    await this.startDatabase();
    const env = await this.readInstallEnv();
    const reference = `service/app:${env.get('SERVICE_VERSION') ?? ''}`;
    const digest = (await this.readIndex())[reference];
    if (!digest)
      throw new OperatorError(`the image ${reference} is not loaded`, {
        hint: 'Run the installer from the package of that version.',
      });
    const current = await this.readAppRecord();
    if (current && isAlive(current.pid) && current.image === reference && current.digest === digest) return;
    await this.stopApp();
    await this.spawnApp(reference, digest, options.firstStartEnv ?? {});
  }

  async startDatabase(): Promise<void> {
    const dataDir = path.join(this.options.home, POSTGRES_DATA_DIR);
    await mkdir(this.runDir, { recursive: true });
    const created = !existsSync(path.join(dataDir, 'PG_VERSION'));
    if (created) await this.initCluster(dataDir);
    if (await this.databaseRunning()) return;
    const port = await this.databasePort();
    await this.exec(
      this.pg('pg_ctl'),
      [
        '-D',
        dataDir,
        '-l',
        path.join(this.runDir, 'postgres.log'),
        '-w',
        '-t',
        '60',
        '-o',
        `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
        'start',
      ],
      { asPgUser: true },
    );
    // Why: the postgres image runs docker/postgres-init/*.sql once, when it creates the cluster.
    if (created) await this.runInitScripts();
  }

  private async runInitScripts(): Promise<void> {
    const dir = path.join(this.options.home, 'docker/postgres-init');
    const scripts = existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort() : [];
    for (const script of scripts) {
      await this.exec(this.pg('psql'), [
        '-v',
        'ON_ERROR_STOP=1',
        ...(await this.connection()),
        '-d',
        'postgres',
        '-f',
        path.join(dir, script),
      ]);
    }
  }

  async stopApp(): Promise<void> {
    const record = await this.readAppRecord();
    if (record && isAlive(record.pid)) {
      process.kill(record.pid, 'SIGTERM');
      const deadline = Date.now() + 20_000;
      while (isAlive(record.pid) && Date.now() < deadline) await sleep(100);
      if (isAlive(record.pid)) process.kill(record.pid, 'SIGKILL');
      while (isAlive(record.pid)) await sleep(50);
    }
    await rm(path.join(this.runDir, 'app.json'), { force: true });
  }

  async stopAll(): Promise<void> {
    await this.stopApp();
    if (await this.databaseRunning()) {
      await this.exec(
        this.pg('pg_ctl'),
        ['-D', path.join(this.options.home, POSTGRES_DATA_DIR), '-m', 'fast', '-w', 'stop'],
        { asPgUser: true },
      );
    }
  }

  async containers(): Promise<ContainerState[]> {
    const db = (await this.databaseRunning()) ? 'running' : 'exited';
    const app = await this.appState();
    const health =
      app.state === 'running' ? ((await this.probe('/api/health'))?.status === 200 ? 'healthy' : 'unhealthy') : '';
    return [
      { service: 'db', state: db, health: '' },
      { service: 'app', state: app.state, health },
    ];
  }

  async appState(): Promise<AppState> {
    const record = await this.readAppRecord();
    if (this.child && record && this.child.process.pid === record.pid && this.child.exited)
      return { state: 'exited', exitCode: this.child.exitCode };
    if (!record) return { state: 'missing', exitCode: null };
    return isAlive(record.pid) ? { state: 'running', exitCode: null } : { state: 'exited', exitCode: null };
  }

  async probe(pathname: string): Promise<{ status: number; body: string } | null> {
    const port = (await this.readInstallEnv()).get('SERVICE_HTTP_PORT');
    try {
      const response = await fetch(`http://127.0.0.1:${port}${pathname}`, { signal: AbortSignal.timeout(3000) });
      return { status: response.status, body: await response.text() };
    } catch {
      return null;
    }
  }

  async dumpDatabase(database: string, file: string, onBytes: (bytes: number) => void): Promise<void> {
    const fd = openSync(file, 'wx', 0o600);
    const timer = setInterval(
      () =>
        void stat(file).then(
          (s) => onBytes(s.size),
          () => {},
        ),
      250,
    );
    try {
      await this.exec(this.pg('pg_dump'), ['-Fc', ...(await this.connection()), '-d', database], { stdoutFd: fd });
    } finally {
      clearInterval(timer);
      closeSync(fd);
    }
    onBytes((await stat(file)).size);
  }

  async listDump(file: string): Promise<number> {
    const { stdout } = await this.exec(this.pg('pg_restore'), ['--list', file]);
    return stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).length;
  }

  async sql(database: string, statement: string): Promise<string> {
    const { stdout } = await this.exec(this.pg('psql'), [
      '-At',
      '-v',
      'ON_ERROR_STOP=1',
      ...(await this.connection()),
      '-d',
      database,
      ...splitStatements(statement),
    ]);
    return stdout;
  }

  async restoreDump(file: string, database: string): Promise<void> {
    const connection = await this.connection();
    await this.exec(this.pg('createdb'), [...connection, database]);
    await this.exec(this.pg('pg_restore'), [
      '--exit-on-error',
      '--no-owner',
      '--no-privileges',
      ...connection,
      '-d',
      database,
      file,
    ]);
  }

  async requestGlobalsImport(): Promise<void> {
    const env = await this.readInstallEnv();
    const reference = `service/app:${env.get('SERVICE_VERSION') ?? ''}`;
    const appDir = path.join(this.imageRootOf(reference), 'app');
    await this.exec(this.options.nodeBinary, [path.join(appDir, 'apps/api/src/admin.js'), 'request-globals-import'], {
      env: await this.appEnvironment(),
      cwd: this.options.home,
    });
  }

  async appLogTail(lines: number): Promise<string> {
    const text = await readFile(path.join(this.runDir, 'app.log'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .slice(-lines - 1)
      .join('\n');
  }

  // ---- internals ----------------------------------------------------------------------------------

  private async spawnApp(
    reference: string,
    digest: string,
    firstStartEnv: Readonly<Record<string, string>>,
  ): Promise<void> {
    const appDir = path.join(this.imageRootOf(reference), 'app');
    const out = openSync(path.join(this.runDir, 'app.log'), 'a');
    const child = spawn(this.options.nodeBinary, [path.join(appDir, 'apps/api/src/main.js')], {
      cwd: this.options.home,
      env: { ...(await this.appEnvironment()), ...firstStartEnv },
      detached: true,
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    const state = { process: child, exitCode: null as number | null, exited: false };
    child.on('exit', (code) => {
      state.exited = true;
      state.exitCode = code;
    });
    child.unref();
    this.child = state;
    const record: AppProcessRecord = { pid: child.pid!, image: reference, digest, startedAt: new Date().toISOString() };
    await writeFile(path.join(this.runDir, 'app.json'), `${JSON.stringify(record)}\n`);
    this.options.log(`started the app ${reference} as pid ${child.pid}`);
  }

  /** The container's environment, with compose.yaml's bind mounts mapped to the installation directory. */
  private async appEnvironment(): Promise<NodeJS.ProcessEnv> {
    const env = await this.readInstallEnv();
    const home = this.options.home;
    const values: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    for (const [k, v] of env) values[k] = v;
    const license = env.get('LICENSE_FILE');
    Object.assign(values, {
      DATABASE_URL: `postgres://${DB_USER}:${encodeURIComponent(env.get('POSTGRES_PASSWORD') ?? '')}@127.0.0.1:${await this.databasePort()}/service`,
      DATA_DIR: path.join(home, APP_DATA_DIR),
      FILES_DIR: path.join(home, FILES_DIR),
      UPLOAD_TMP_DIR: path.join(home, APP_DATA_DIR, 'uploads'),
      HOST: '127.0.0.1',
      PORT: env.get('SERVICE_HTTP_PORT') ?? '3000',
      SERVICE_EDITION: 'self-hosted',
      TRUST_PROXY: '',
      LICENSE_FILE: license?.startsWith('/license/')
        ? path.join(home, LICENSE_DIR, license.slice('/license/'.length))
        : (license ?? ''),
    });
    await mkdir(path.join(home, FILES_DIR), { recursive: true });
    await mkdir(path.join(home, APP_DATA_DIR, 'uploads'), { recursive: true });
    return values;
  }

  private async initCluster(dataDir: string): Promise<void> {
    const env = await this.readInstallEnv();
    const password = env.get('POSTGRES_PASSWORD');
    if (!password)
      throw new OperatorError('POSTGRES_PASSWORD is not set in .env', { hint: 'Set it, then run the command again.' });
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const pwfile = path.join(this.runDir, '.pwfile');
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    try {
      await this.ownByPgUser(dataDir, this.runDir, pwfile);
      await this.exec(
        this.pg('initdb'),
        ['-D', dataDir, '-U', DB_USER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'],
        { asPgUser: true },
      );
    } finally {
      await rm(pwfile, { force: true });
    }
  }

  private async ownByPgUser(...paths: string[]): Promise<void> {
    if (!this.runsAsOtherUser()) return;
    const { stdout } = await this.exec('id', ['-u', this.options.pgUser!]);
    const { stdout: gid } = await this.exec('id', ['-g', this.options.pgUser!]);
    for (const p of paths) await chown(p, Number(stdout.trim()), Number(gid.trim()));
  }

  private runsAsOtherUser(): boolean {
    return this.options.pgUser !== null && process.getuid?.() === 0;
  }

  private async databaseRunning(): Promise<boolean> {
    const pidFile = path.join(this.options.home, POSTGRES_DATA_DIR, 'postmaster.pid');
    const text = await readFile(pidFile, 'utf8').catch(() => null);
    const pid = text ? Number(text.split('\n')[0]) : NaN;
    return Number.isInteger(pid) && isAlive(pid);
  }

  private async databasePort(): Promise<number> {
    const file = path.join(this.runDir, 'postgres.port');
    const saved = await readFile(file, 'utf8').catch(() => null);
    if (saved) return Number(saved.trim());
    const port = await freePort();
    await mkdir(this.runDir, { recursive: true });
    await writeFile(file, `${port}\n`);
    return port;
  }

  private async connection(): Promise<string[]> {
    return ['-h', '127.0.0.1', '-p', String(await this.databasePort()), '-U', DB_USER];
  }

  private pg(program: string): string {
    return path.join(this.options.pgBin, program);
  }

  private imageRoot(image: ManifestImage): string {
    return this.imageRootOf(imageReference(image));
  }

  private imageRootOf(reference: string): string {
    return path.join(this.imagesDir, reference.replace(/[^A-Za-z0-9._-]/g, '_'));
  }

  private async readIndex(): Promise<Record<string, string>> {
    return JSON.parse(await readFile(path.join(this.imagesDir, 'index.json'), 'utf8').catch(() => '{}')) as Record<
      string,
      string
    >;
  }

  private async readAppRecord(): Promise<AppProcessRecord | null> {
    const text = await readFile(path.join(this.runDir, 'app.json'), 'utf8').catch(() => null);
    return text ? (JSON.parse(text) as AppProcessRecord) : null;
  }

  private async readInstallEnv(): Promise<Map<string, string>> {
    return parseEnvFile(await readFile(path.join(this.options.home, '.env'), 'utf8')).values;
  }

  /** Runs a program; a non-zero exit throws with the last line of its error output. */
  private async exec(
    program: string,
    args: string[],
    options: { asPgUser?: boolean; stdoutFd?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
  ): Promise<{ stdout: string }> {
    const password =
      (await this.readInstallEnv().catch(() => new Map<string, string>())).get('POSTGRES_PASSWORD') ?? '';
    const [file, argv] =
      options.asPgUser && this.runsAsOtherUser()
        ? ['runuser', ['-u', this.options.pgUser!, '--', program, ...args]]
        : [program, args];
    this.options.log(`run ${file} ${argv.join(' ')}`);
    return new Promise((resolve, reject) => {
      const child = spawn(file, argv, {
        cwd: options.cwd ?? this.options.home,
        env: options.env ?? { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '10' },
        stdio: ['ignore', options.stdoutFd ?? 'pipe', 'pipe'],
        // Why a process group of its own: a Ctrl-C or a dropped terminal must not reach
        // pg_restore and its kind; the installer holds those signals and finishes or rolls back.
        detached: true,
      });
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', (err) =>
        reject(
          new OperatorError(`cannot run ${file}: ${err.message}`, {
            hint: 'Check SERVICE_INSTALLER_PG_BIN and that PostgreSQL is installed.',
          }),
        ),
      );
      child.on('close', (code) => {
        if (stderr.trim() !== '') this.options.log(`${path.basename(program)}: ${stderr.trim()}`);
        if (code === 0) resolve({ stdout });
        else
          reject(
            new OperatorError(
              `${path.basename(program)} failed (exit ${code}): ${stderr.trim().split('\n').pop() ?? ''}`,
              { hint: `See the log file for the full output of ${path.basename(program)}.` },
            ),
          );
      });
    });
  }
}

/** psql runs each -c in its own transaction; statements separated by ";\n" become separate -c. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*\n/)
    .map((s) => s.trim().replace(/;$/, ''))
    .filter((s) => s !== '')
    .flatMap((s) => ['-c', s]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
