import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ReleaseKitError } from './release-kit-error.ts';

/** One line of a SHA256SUMS file: a path relative to the file's folder and its digest. */
export interface FileDigest {
  path: string;
  sha256: string;
}

/** What a folder holds compared with its SHA256SUMS. `ok` only when all three lists are empty. */
export interface SumsComparison {
  ok: boolean;
  /** Listed, but not in the folder. */
  missing: string[];
  /** In the folder, but not listed. */
  extra: string[];
  /** Listed with another digest than the file has. */
  mismatched: string[];
}

const LINE = /^([0-9a-f]{64}) [ *](.+)$/;
/** Largest SHA256SUMS accepted: about 80,000 lines; a package has a few hundred. */
export const MAX_SUMS_BYTES = 8 * 1024 * 1024;

/**
 * Why so strict: a listed path is later joined to a folder and read, and sha256sum escapes names
 * with backslashes or newlines in a way we would otherwise misread. Package paths are ours, so
 * anything unusual is refused rather than interpreted.
 */
export function assertSafeRelativePath(p: string, source: string): void {
  const bad =
    p === '' ||
    p.startsWith('/') ||
    p.includes('\\') ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a path with a control character is rejected.
    /[\u0000-\u001f\u007f]/.test(p) ||
    p.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
  if (bad) {
    throw new ReleaseKitError(
      'unsafe_path',
      `${source} names the path ${JSON.stringify(p)}, which is not a plain relative path`,
      {
        hint: 'The package was not made by the release tool or was altered; get it again from the vendor.',
      },
    );
  }
}

/** SHA256SUMS text as `sha256sum` writes it (two spaces), sorted by path so the bytes are reproducible. */
export function formatSha256Sums(entries: readonly FileDigest[]): string {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (let i = 0; i < sorted.length; i++) {
    assertSafeRelativePath(sorted[i]!.path, 'SHA256SUMS');
    if (!/^[0-9a-f]{64}$/.test(sorted[i]!.sha256))
      throw new RangeError(`not a SHA-256 hex digest: ${sorted[i]!.sha256}`);
    if (i > 0 && sorted[i - 1]!.path === sorted[i]!.path) throw new RangeError(`${sorted[i]!.path} is listed twice`);
  }
  return sorted.map((e) => `${e.sha256}  ${e.path}\n`).join('');
}

/** Reads SHA256SUMS strictly: every line `<64 hex> <space or *><path>`, safe paths, no path twice. */
export function parseSha256Sums(text: string, source = 'SHA256SUMS'): Map<string, string> {
  if (text.length > MAX_SUMS_BYTES)
    throw new ReleaseKitError('invalid_sums', `${source} is larger than ${MAX_SUMS_BYTES} bytes`);
  const sums = new Map<string, string>();
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    const match = LINE.exec(line);
    if (!match) {
      throw new ReleaseKitError('invalid_sums', `${source} line ${i + 1} is not "<sha256>  <file>"`, {
        hint: 'The package was altered or damaged; get it again from the vendor.',
      });
    }
    const [, digest = '', file = ''] = match;
    assertSafeRelativePath(file, `${source} line ${i + 1}`);
    if (sums.has(file)) throw new ReleaseKitError('invalid_sums', `${source} lists ${file} twice (line ${i + 1})`);
    sums.set(file, digest);
  });
  if (sums.size === 0) throw new ReleaseKitError('invalid_sums', `${source} lists no file`);
  return sums;
}

/** Compares listed digests with the files found (each path once); pure. */
export function compareWithSums(listed: ReadonlyMap<string, string>, found: readonly FileDigest[]): SumsComparison {
  const foundMap = new Map(found.map((f) => [f.path, f.sha256]));
  const missing = [...listed.keys()].filter((p) => !foundMap.has(p)).sort();
  const extra = [...foundMap.keys()].filter((p) => !listed.has(p)).sort();
  const mismatched = [...listed.entries()]
    .filter(([p, digest]) => foundMap.has(p) && foundMap.get(p) !== digest)
    .map(([p]) => p)
    .sort();
  return { ok: missing.length === 0 && extra.length === 0 && mismatched.length === 0, missing, extra, mismatched };
}

export async function sha256File(file: string, onBytes?: (n: number) => void): Promise<string> {
  const hash = createHash('sha256');
  const stream = createReadStream(file);
  if (onBytes) stream.on('data', (chunk) => onBytes(chunk.length));
  await pipeline(stream, hash);
  return hash.digest('hex');
}

/** Every regular file below `dir` (relative, `/`-separated, sorted); links and special files are listed apart. */
export async function listTree(dir: string): Promise<{ files: string[]; others: string[] }> {
  const files: string[] = [];
  const others: string[] = [];
  async function walk(relative: string): Promise<void> {
    const absolute = relative === '' ? dir : path.join(dir, relative);
    const entries = await readdir(absolute, { withFileTypes: true });
    for (const entry of entries) {
      const rel = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(rel);
      else if (entry.isFile()) files.push(rel);
      else others.push(rel);
    }
  }
  await walk('');
  return { files: files.sort(), others: others.sort() };
}

/** Digests of every regular file below `dir` except `exclude` (paths relative to dir). */
export async function hashTree(
  dir: string,
  options: { exclude?: readonly string[]; onBytes?: (n: number) => void } = {},
): Promise<FileDigest[]> {
  const exclude = new Set(options.exclude ?? []);
  const { files } = await listTree(dir);
  const digests: FileDigest[] = [];
  for (const file of files) {
    if (exclude.has(file)) continue;
    digests.push({ path: file, sha256: await sha256File(path.join(dir, file), options.onBytes) });
  }
  return digests;
}

/**
 * Checks a folder against its SHA256SUMS: every listed file present with its digest, and no other
 * file (links and special files count as unlisted). `exclude` names files SHA256SUMS cannot list
 * (itself and the signatures).
 */
export async function verifyTreeAgainstSums(
  dir: string,
  sumsText: string,
  options: { exclude?: readonly string[]; onBytes?: (n: number) => void } = {},
): Promise<SumsComparison> {
  const listed = parseSha256Sums(sumsText);
  const exclude = new Set(options.exclude ?? []);
  const { files, others } = await listTree(dir);
  const found: FileDigest[] = [];
  for (const file of files) {
    if (exclude.has(file)) continue;
    // Why hash only listed files: an unlisted one is an error whatever it holds, and may be huge.
    found.push({ path: file, sha256: listed.has(file) ? await sha256File(path.join(dir, file), options.onBytes) : '' });
  }
  const comparison = compareWithSums(listed, found);
  const unsafe = others.filter((o) => !exclude.has(o));
  if (unsafe.length > 0) {
    comparison.extra = [...new Set([...comparison.extra, ...unsafe])].sort();
    comparison.ok = false;
  }
  return comparison;
}

/** Whether a path exists as a regular file (lstat: a link is not one). */
export async function isRegularFile(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isFile();
  } catch {
    return false;
  }
}
