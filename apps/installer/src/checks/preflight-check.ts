import type { VerifiedPackage, ReleaseKitErrorCode } from '@service/release-kit';
import type { BackupFile } from '../backup/list-backups.ts';
import type { BackupManifest } from '../backup/backup-manifest.ts';
import type { ParsedEnv } from '../install-dir/env-file.ts';
import type { InstalledRelease } from '../install-dir/installed-release.ts';
import type { EngineCheck } from '../runtime/service-runtime.ts';

export type CommandName =
  | 'status'
  | 'install'
  | 'upgrade'
  | 'backup'
  | 'restore'
  | 'import-globals'
  | 'recover'
  | 'cleanup';

/** Free space somewhere, and how much the command needs there. */
export interface DiskFacts {
  dir: string;
  freeBytes: number;
  neededBytes: number;
  /** What the needed space is for, for the message. */
  purpose: string;
}

/**
 * Everything the checks judge, gathered read-only before any change (gather-facts.ts). The checks
 * themselves are pure functions of it, so they are tested over many states without a machine.
 */
export interface Facts {
  command: CommandName;
  now: Date;
  home: string;
  installation: {
    /** compose.yaml and .env are there. */
    present: boolean;
    env: ParsedEnv | null;
    release: InstalledRelease;
    /** Version /api/version reports, or null when nothing answers. */
    runningVersion: string | null;
    backups: BackupFile[];
  };
  engine: EngineCheck;
  disks: DiskFacts[];
  package: {
    dir: string;
    verified: VerifiedPackage | null;
    error: { code: ReleaseKitErrorCode | 'other'; message: string; hint: string | undefined } | null;
  } | null;
  backup: { file: string; manifest: BackupManifest | null; error: string | null } | null;
}

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
  hint?: string;
}

/**
 * One pre-flight check, in a file of its own: `status` runs the ones that apply read-only, the other commands before
 * touching anything.
 */
export interface PreflightCheck {
  id: string;
  title: string;
  appliesTo: readonly CommandName[];
  run(facts: Facts): Omit<CheckResult, 'id' | 'title'>;
}
