import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  CERTS_DIR,
  IMAGES_DIR,
  INSTALLER_DIR,
  LIBRARY_DIR,
  listTree,
  parseSha256Sums,
  PROXY_CONFIG_FILE,
  SUMS_FILE,
  UNLISTED_FILES,
} from '@service/release-kit';
import { INSTALLER_STATE_DIR } from './install-layout.ts';

/** Folders the release owns entirely: replaced as one unit (one rename). */
const WHOLE_FOLDERS = [INSTALLER_DIR, LIBRARY_DIR];

/**
 * Paths of the package that belong to the operator once installed: copied on install only if absent, never replaced.
 */
export function isOperatorOwned(file: string): boolean {
  return file === PROXY_CONFIG_FILE || file === CERTS_DIR || file.startsWith(`${CERTS_DIR}/`);
}

/**
 * The release files of a package or an installed release, from its SHA256SUMS (plus the
 * signatures, which it cannot list), without the images (loaded into the engine, never copied)
 * and without the operator's files. Grouped into units: a whole folder (installer/, library/) or
 * one file; each unit is swapped by one rename.
 */
export function releaseUnits(sumsText: string): string[] {
  const files = [...parseSha256Sums(sumsText).keys(), ...UNLISTED_FILES];
  const units = new Set<string>();
  for (const file of files) {
    if (file.startsWith(`${IMAGES_DIR}/`) || isOperatorOwned(file)) continue;
    const folder = WHOLE_FOLDERS.find((f) => file.startsWith(`${f}/`));
    units.add(folder ?? file);
  }
  return [...units].sort();
}

export interface FileSwapPlan {
  /** Units the new release brings (replacing the installed ones of the same path). */
  replace: string[];
  /** Units of the installed release the new one no longer has: moved aside with the replaced ones. */
  remove: string[];
}

/** Pure: what the swap does, from the new and the installed release's units. */
export function planFileSwap(newUnits: readonly string[], installedUnits: readonly string[]): FileSwapPlan {
  const incoming = new Set(newUnits);
  return { replace: [...newUnits], remove: installedUnits.filter((u) => !incoming.has(u)) };
}

interface JournalEntry {
  unit: string;
  /** The installed unit was moved to the previous-release folder. */
  keptOld: boolean;
  /** The new unit was moved in. */
  placedNew: boolean;
}

/** A swap that happened, and can be undone. */
export interface FileSwap {
  previousDir: string;
  journal: JournalEntry[];
  /** Puts every replaced unit back and removes the new ones, in reverse order. */
  undo(): Promise<void>;
}

/**
 * Copies the new units into a staging folder inside the installation (so every move is a rename
 * on one file system), then for each unit moves the installed one into `previousDir` and the
 * staged one into place. The journal is written to `.installer/` after every move, so an
 * interrupted swap can be understood. The operator's files are never in a unit.
 */
export async function swapReleaseFiles(options: {
  home: string;
  packageDir: string;
  plan: FileSwapPlan;
  previousDir: string;
  stagingName: string;
}): Promise<FileSwap> {
  const { home, packageDir, plan } = options;
  const staging = path.join(home, options.stagingName);
  const previousDir = freeName(options.previousDir);
  const journalFile = path.join(home, INSTALLER_STATE_DIR, `${path.basename(previousDir)}.journal.json`);
  await rm(staging, { recursive: true, force: true });
  for (const unit of plan.replace) {
    await mkdir(path.dirname(path.join(staging, unit)), { recursive: true });
    await cp(path.join(packageDir, unit), path.join(staging, unit), { recursive: true, preserveTimestamps: true });
  }
  await mkdir(path.dirname(journalFile), { recursive: true });
  const journal: JournalEntry[] = [];
  const save = () => writeFile(journalFile, `${JSON.stringify({ previousDir, journal }, null, 2)}\n`);
  const moveAside = async (unit: string): Promise<boolean> => {
    const current = path.join(home, unit);
    if (!existsSync(current)) return false;
    await mkdir(path.dirname(path.join(previousDir, unit)), { recursive: true });
    await rename(current, path.join(previousDir, unit));
    return true;
  };
  for (const unit of plan.replace) {
    const entry: JournalEntry = { unit, keptOld: false, placedNew: false };
    journal.push(entry);
    entry.keptOld = await moveAside(unit);
    await save();
    await mkdir(path.dirname(path.join(home, unit)), { recursive: true });
    await rename(path.join(staging, unit), path.join(home, unit));
    entry.placedNew = true;
    await save();
  }
  for (const unit of plan.remove) {
    const entry: JournalEntry = { unit, keptOld: false, placedNew: false };
    journal.push(entry);
    entry.keptOld = await moveAside(unit);
    await save();
  }
  await rm(staging, { recursive: true, force: true });
  return {
    previousDir,
    journal,
    async undo() {
      for (const entry of [...journal].reverse()) {
        if (entry.placedNew) await rm(path.join(home, entry.unit), { recursive: true, force: true });
        if (entry.keptOld) {
          await mkdir(path.dirname(path.join(home, entry.unit)), { recursive: true });
          await rename(path.join(previousDir, entry.unit), path.join(home, entry.unit));
        }
      }
      await writeFile(journalFile, `${JSON.stringify({ previousDir, journal, undone: true }, null, 2)}\n`);
      // Why: an emptied previous-release folder would make the next run use `-2`, hiding the real one.
      if (existsSync(previousDir) && (await listTree(previousDir)).files.length === 0)
        await rm(previousDir, { recursive: true, force: true });
    },
  };
}

/** `dir`, or `dir-2`, `dir-3`... when an earlier run already left one. */
function freeName(dir: string): string {
  if (!existsSync(dir)) return dir;
  for (let i = 2; ; i++) if (!existsSync(`${dir}-${i}`)) return `${dir}-${i}`;
}

/** The installed release's units, from its SHA256SUMS in the installation (none on a fresh one). */
export async function installedReleaseUnits(home: string): Promise<string[]> {
  const text = await readFile(path.join(home, SUMS_FILE), 'utf8').catch(() => null);
  return text === null ? [] : releaseUnits(text);
}
