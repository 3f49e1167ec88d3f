import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm } from 'node:fs/promises';
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
import { NO_FAULTS, type FaultInjector } from '../journal/fault-injection.ts';

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

/**
 * A release-file swap as the journal records it before the first move. Whether each move has
 * happened is read from the disk (the staged copy, the installed unit, the kept one), so the swap
 * can be finished or undone after a crash at any point, and doing either twice changes nothing.
 * Paths are relative to the installation directory.
 */
export interface SwapRecord {
  /** Where the new units are copied first, inside the installation (so every move is a rename). */
  staging: string;
  /** Where the replaced and retired units are kept: `.previous-<version>` (or `-2`, ...). */
  previousDir: string;
  /** Units the new release brings; `existed`: the installation had one before the swap. */
  replace: Array<{ unit: string; existed: boolean }>;
  /** Units of the installed release the new one no longer has. */
  remove: string[];
}

/** The swap of `plan`, with the names it will use and what exists now; changes nothing. */
export function planSwapRecord(
  home: string,
  plan: FileSwapPlan,
  names: { previousDir: string; stagingName: string },
): SwapRecord {
  const previous = freeName(path.resolve(home, names.previousDir));
  return {
    staging: names.stagingName,
    previousDir: path.relative(home, previous),
    replace: plan.replace.map((unit) => ({ unit, existed: existsSync(path.join(home, unit)) })),
    remove: plan.remove.filter((unit) => existsSync(path.join(home, unit))),
  };
}

/**
 * Copies the new units from the package into the staging folder (emptied first). Nothing the
 * installation uses changes; a failure (a full disk) leaves only the staging folder.
 */
export async function stageReleaseFiles(
  home: string,
  packageDir: string,
  record: SwapRecord,
  faults: FaultInjector = NO_FAULTS,
): Promise<void> {
  const staging = path.join(home, record.staging);
  await rm(staging, { recursive: true, force: true });
  for (const { unit } of record.replace) {
    faults.beforeWrite(`stage ${unit}`);
    await mkdir(path.dirname(path.join(staging, unit)), { recursive: true });
    await cp(path.join(packageDir, unit), path.join(staging, unit), { recursive: true, preserveTimestamps: true });
  }
}

/**
 * Moves the staged units in: each installed unit into the previous-release folder, then the
 * staged one into its place, by renames; retired units are moved aside too. Idempotent: a unit
 * already moved is skipped, so it also finishes a swap a crash interrupted. The operator's files
 * are never in a unit.
 */
export async function applySwap(home: string, record: SwapRecord): Promise<void> {
  const at = (base: string, unit: string) => path.join(home, base, unit);
  for (const { unit, existed } of record.replace) {
    const staged = at(record.staging, unit);
    const current = path.join(home, unit);
    const kept = at(record.previousDir, unit);
    if (!existsSync(staged)) {
      if (existsSync(current)) continue;
      throw new Error(`${unit} is neither staged in ${record.staging} nor in place; the swap cannot be finished`);
    }
    if (existed && existsSync(current)) {
      if (existsSync(kept))
        throw new Error(`${unit} is in place and a kept copy is in ${record.previousDir} too; resolve it by hand`);
      await mkdir(path.dirname(kept), { recursive: true });
      await rename(current, kept);
    }
    await mkdir(path.dirname(current), { recursive: true });
    await rename(staged, current);
  }
  for (const unit of record.remove) {
    const current = path.join(home, unit);
    const kept = at(record.previousDir, unit);
    if (!existsSync(current) || existsSync(kept)) continue;
    await mkdir(path.dirname(kept), { recursive: true });
    await rename(current, kept);
  }
  await rm(path.join(home, record.staging), { recursive: true, force: true });
}

/**
 * Puts every unit the swap replaced or retired back and removes the new ones, reading from the
 * disk which moves happened. Idempotent: undoing an undone (or never started) swap changes
 * nothing.
 */
export async function undoSwap(home: string, record: SwapRecord): Promise<void> {
  const at = (base: string, unit: string) => path.join(home, base, unit);
  for (const unit of [...record.remove].reverse()) {
    const kept = at(record.previousDir, unit);
    if (existsSync(kept) && !existsSync(path.join(home, unit))) {
      await mkdir(path.dirname(path.join(home, unit)), { recursive: true });
      await rename(kept, path.join(home, unit));
    }
  }
  for (const { unit, existed } of [...record.replace].reverse()) {
    const current = path.join(home, unit);
    const kept = at(record.previousDir, unit);
    if (existed) {
      if (!existsSync(kept)) continue;
      await rm(current, { recursive: true, force: true });
      await mkdir(path.dirname(current), { recursive: true });
      await rename(kept, current);
    } else if (!existsSync(at(record.staging, unit))) {
      // Why only when not staged: a unit the installation never had is in place only if the swap moved it there.
      await rm(current, { recursive: true, force: true });
    }
  }
  await rm(path.join(home, record.staging), { recursive: true, force: true });
  // Why: an emptied previous-release folder would make the next run use `-2`, hiding the real one.
  const previous = path.join(home, record.previousDir);
  if (existsSync(previous) && (await listTree(previous)).files.length === 0)
    await rm(previous, { recursive: true, force: true });
}

/** Stages and applies a swap in one go (install, where nothing needs undoing). */
export async function swapReleaseFiles(options: {
  home: string;
  packageDir: string;
  plan: FileSwapPlan;
  previousDir: string;
  stagingName: string;
}): Promise<SwapRecord> {
  const record = planSwapRecord(options.home, options.plan, options);
  await stageReleaseFiles(options.home, options.packageDir, record);
  await applySwap(options.home, record);
  return record;
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
