import { yamlString } from './write-yaml.ts';

/**
 * A fast reader for the YAML that write-yaml.ts writes, and what a person adds to it by hand:
 * block mappings with identifier keys, block lists, `[]`, `{}`, one-line flow lists of scalars,
 * plain scalars the writer would write plain, JSON-style double-quoted strings, numbers, `null`,
 * `true` and `false`, indented by two spaces, with comments and blank lines. Anything else (other
 * quoting, block scalars, anchors, tabs, duplicate keys, odd indentation) returns undefined, and
 * the caller reads the block with `yaml` instead. Why: a report of 5,000 findings has ~20,000
 * small YAML blocks, and the general parser spent most of the import reading them. A differential
 * test checks that whatever this accepts, `yaml` reads to the same value.
 */

const KEY_LINE = /^([A-Za-z][A-Za-z0-9]*):(?: (.*))?$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters inside quotes are what this rejects.
const RAW_FORBIDDEN_IN_QUOTES = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]/;
const FAIL = Symbol('outside the subset');
const SUBSET_MAX_DEPTH = 32;
type Result = unknown | typeof FAIL;

interface Line {
  indent: number;
  text: string;
}

export function readYamlSubset(text: string): unknown | undefined {
  if (text === '{}') return {};
  const lines: Line[] = [];
  for (const line of text.split('\n')) {
    const raw = withoutComment(line);
    let indent = 0;
    while (raw.charCodeAt(indent) === 32) indent++;
    // Why skipped: blank lines and comment lines are nothing in the block mappings and lists the
    // subset reads (a person's file has them; the general reader takes seconds a megabyte).
    if (indent === raw.length) continue;
    // Why a depth limit: readMapping and readList recurse once per level (the general reader
    // refuses blocks nested deeper than MAX_YAML_DEPTH with a clear error).
    if (indent % 2 !== 0 || indent > 2 * SUBSET_MAX_DEPTH) return undefined;
    lines.push({ indent, text: raw.slice(indent) });
  }
  const state = { lines, i: 0 };
  const value = readMapping(state, 0);
  return value === FAIL || state.i !== lines.length ? undefined : value;
}

/**
 * The line without its comment: from a `#` that starts the line or follows a space or tab, outside
 * a double-quoted string, with the spaces and tabs before it. A line without one is returned as
 * is (trailing spaces then make the subset refuse it, as before).
 */
function withoutComment(line: string): string {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (quoted) {
      if (c === 92) i++;
      else if (c === 34) quoted = false;
    } else if (c === 34) quoted = true;
    else if (c === 35 && (i === 0 || line.charCodeAt(i - 1) === 32 || line.charCodeAt(i - 1) === 9)) {
      let end = i;
      while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
      return line.slice(0, end);
    }
  }
  return line;
}

function readMapping(state: { lines: Line[]; i: number }, indent: number): Result {
  const out: Record<string, unknown> = {};
  const { lines } = state;
  while (state.i < lines.length && lines[state.i]!.indent === indent && !lines[state.i]!.text.startsWith('- ')) {
    const m = KEY_LINE.exec(lines[state.i]!.text);
    if (!m) return FAIL;
    const key = m[1]!;
    if (Object.hasOwn(out, key)) return FAIL;
    state.i++;
    let value: Result;
    if (m[2] === undefined) {
      const next = lines[state.i];
      if (!next || next.indent !== indent + 2) return FAIL;
      value = next.text.startsWith('- ') ? readList(state, indent + 2) : readMapping(state, indent + 2);
    } else value = readInline(m[2]);
    if (value === FAIL) return FAIL;
    out[key] = value;
  }
  return Object.keys(out).length === 0 ? FAIL : out;
}

function readList(state: { lines: Line[]; i: number }, indent: number): Result {
  const out: unknown[] = [];
  const { lines } = state;
  while (state.i < lines.length && lines[state.i]!.indent === indent && lines[state.i]!.text.startsWith('- ')) {
    const rest = lines[state.i]!.text.slice(2);
    let value: Result;
    if (KEY_LINE.test(rest) && !rest.startsWith('"')) {
      // Why: `- key: value` opens a mapping whose further keys sit two spaces deeper.
      lines[state.i] = { indent: indent + 2, text: rest };
      value = readMapping(state, indent + 2);
    } else {
      state.i++;
      value = readInline(rest);
    }
    if (value === FAIL) return FAIL;
    out.push(value);
  }
  return out;
}

function readInline(text: string): Result {
  if (text === '[]') return [];
  if (text === '{}') return {};
  if (text.startsWith('[')) return readFlowList(text);
  return readScalar(text);
}

function readFlowList(text: string): Result {
  if (!text.endsWith(']')) return FAIL;
  const out: unknown[] = [];
  let i = 1;
  for (;;) {
    let end: number;
    if (text[i] === '"') {
      end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      end++;
    } else {
      end = i;
      while (end < text.length && text[end] !== ',' && text[end] !== ']') end++;
    }
    const item = readScalar(text.slice(i, end));
    if (item === FAIL) return FAIL;
    out.push(item);
    if (text[end] === ']' && end === text.length - 1) return out;
    if (text[end] !== ',' || text[end + 1] !== ' ') return FAIL;
    i = end + 2;
  }
}

function readScalar(text: string): Result {
  if (text.startsWith('"')) {
    if (text.length < 2 || !text.endsWith('"') || RAW_FORBIDDEN_IN_QUOTES.test(text)) return FAIL;
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'string' ? value : FAIL;
    } catch {
      return FAIL;
    }
  }
  if (text === 'null') return null;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (NUMBER.test(text)) return Number(text);
  return text !== '' && yamlString(text) === text ? text : FAIL;
}
