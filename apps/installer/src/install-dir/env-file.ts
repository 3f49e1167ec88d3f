import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat, chmod, chown } from 'node:fs/promises';
import path from 'node:path';

/** A line of `.env` the installer cannot read, with its number (1-based). */
export interface EnvProblem {
  line: number;
  message: string;
}

export interface ParsedEnv {
  values: Map<string, string>;
  problems: EnvProblem[];
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ASSIGNMENT = /^\s*(?:export\s+)?([^=\s]+)\s*=(.*)$/;

/**
 * Reads `.env` as compose and the service do: `KEY=value` lines, `#` comments, blank lines,
 * optional `export`, values bare (a ` #` starts a comment), in single quotes (literal) or double
 * quotes (`\n` escapes). A later line wins. Every line that is none of these is a problem with its
 * number, so "malformed .env" names the line instead of guessing.
 */
export function parseEnvFile(text: string): ParsedEnv {
  const values = new Map<string, string>();
  const problems: EnvProblem[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = ASSIGNMENT.exec(raw);
    if (!match) {
      problems.push({ line: i + 1, message: 'is not KEY=value' });
      return;
    }
    const [, key = '', rawValue = ''] = match;
    if (!KEY.test(key)) {
      problems.push({ line: i + 1, message: `has the invalid name "${key}" (letters, digits and _ only)` });
      return;
    }
    const value = readValue(rawValue.trim());
    if (value === null) {
      problems.push({ line: i + 1, message: `has an unterminated quote in the value of ${key}` });
      return;
    }
    values.set(key, value);
  });
  return { values, problems };
}

function readValue(raw: string): string | null {
  if (raw.startsWith('"')) {
    const end = findClosingQuote(raw, '"');
    if (end < 0) return null;
    return raw
      .slice(1, end)
      .replace(/\\n/g, '\n')
      .replace(/\\(["\\])/g, '$1');
  }
  if (raw.startsWith("'")) {
    const end = raw.indexOf("'", 1);
    if (end < 0) return null;
    return raw.slice(1, end);
  }
  const comment = raw.search(/\s#/);
  return (comment >= 0 ? raw.slice(0, comment) : raw).trim();
}

function findClosingQuote(raw: string, quote: string): number {
  for (let i = 1; i < raw.length; i++) {
    if (raw[i] === '\\') i++;
    else if (raw[i] === quote) return i;
  }
  return -1;
}

/**
 * `.env` text with KEY set to `value`, every other byte as it was: each line assigning KEY has its
 * value replaced (keeping `export`, spacing before `=` and the line ending); with none, one line
 * is appended (after a line break if the file did not end with one). The value must be bare-safe.
 */
export function setEnvValue(text: string, key: string, value: string): string {
  if (!KEY.test(key)) throw new RangeError(`invalid key ${key}`);
  if (!/^[A-Za-z0-9._+\-/:@=,]*$/.test(value)) throw new RangeError(`value for ${key} needs quoting; not supported`);
  const pattern = new RegExp(`^(\\s*(?:export\\s+)?${key}\\s*=[ \\t]*)([^\\r\\n]*)(\\r?)$`, 'gm');
  let replaced = false;
  const next = text.replace(pattern, (_m, head: string, _old: string, cr: string) => {
    replaced = true;
    return `${head}${value}${cr}`;
  });
  if (replaced) return next;
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const separator = text === '' || text.endsWith('\n') ? '' : newline;
  return `${text}${separator}${key}=${value}${newline}`;
}

/**
 * Replaces a file through a temporary file in the same folder and a rename, so a reader (or a
 * crash) sees the old or the new content, never half. Mode and owner of the old file are kept.
 */
export async function replaceFileAtomically(file: string, content: string | Uint8Array): Promise<void> {
  const before = await stat(file).catch(() => null);
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', before ? before.mode & 0o777 : 0o600);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (before) {
      await chmod(temp, before.mode & 0o777);
      if (process.getuid?.() === 0) await chown(temp, before.uid, before.gid);
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
