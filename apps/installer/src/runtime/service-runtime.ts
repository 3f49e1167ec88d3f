import type { ManifestImage } from '@service/release-kit';

export interface EngineCheck {
  ok: boolean;
  /** "Docker 27.3.1 with compose 2.29.7", or what is missing. */
  detail: string;
  /** The container engine's and compose's versions as they report them; null when not a container engine. */
  versions: { engine: string; compose: string } | null;
}

export interface UpOptions {
  /**
   * Settings for the app's first start only, never written to .env (the first administrator's
   * password): compose passes them from the installer's environment, the local adapter directly.
   */
  firstStartEnv?: Readonly<Record<string, string>>;
}

export interface ContainerState {
  service: string;
  /** running, restarting, exited, created, missing */
  state: string;
  /** healthy, unhealthy, starting, or '' when the container has no health check. */
  health: string;
}

/** The app as its process or container is seen from outside. */
export interface AppState {
  state: 'running' | 'restarting' | 'exited' | 'missing';
  /** Exit code when it exited; null otherwise or unknown. */
  exitCode: number | null;
}

/**
 * Everything the installer does to the running service, behind one interface: the Docker adapter
 * (docker compose, the only place execa runs the engine) for real installations, and the
 * local-process adapter (the built app as a local process on a local PostgreSQL) for the
 * end-to-end test on machines without a container engine. Database names are PostgreSQL's
 * (`service_control_plane`, ...).
 */
export interface ServiceRuntime {
  readonly kind: 'docker' | 'local-process';
  /** For messages: "docker compose in /opt/service". */
  describe(): string;
  checkEngine(): Promise<EngineCheck>;
  /** A folder on the file system where loaded images take space (for the disk check). */
  imageStoreDir(): Promise<string>;
  /** True when the engine has the image under its name and tag with the manifest's digest. */
  hasImage(image: ManifestImage): Promise<boolean>;
  loadImage(archive: string, image: ManifestImage, onBytes: (done: number, total: number) => void): Promise<void>;
  /** Creates or recreates what changed and starts everything (compose up -d). */
  up(options?: UpOptions): Promise<void>;
  /** Starts the database alone (backup and restore need it with the app stopped). */
  startDatabase(): Promise<void>;
  stopApp(): Promise<void>;
  stopAll(): Promise<void>;
  containers(): Promise<ContainerState[]>;
  appState(): Promise<AppState>;
  /** GET a path of the service from where it runs; null when nothing answers. */
  probe(pathname: string): Promise<{ status: number; body: string } | null>;
  /** pg_dump -Fc of one database into a file; a failure of any stage (engine, pg_dump, write) throws. */
  dumpDatabase(database: string, file: string, onBytes: (bytes: number) => void): Promise<void>;
  /** pg_restore --list of a dump; throws when the dump cannot be read. Returns the number of entries. */
  listDump(file: string): Promise<number>;
  /** Runs SQL against a database (psql -At, ON_ERROR_STOP) and returns its output. */
  sql(database: string, statement: string): Promise<string>;
  /** Creates `database` (which must not exist) and restores the dump into it. */
  restoreDump(file: string, database: string): Promise<void>;
  /** Asks the service to import the global library at its next start (the admin CLI in the app). */
  requestGlobalsImport(): Promise<void>;
  /** The app's recent output, for a failure report. */
  appLogTail(lines: number): Promise<string>;
}
