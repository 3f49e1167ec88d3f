/**
 * A small YAML writer for the structured fields this package writes (finding fields, assets,
 * report metadata). Why not `yaml`'s stringify: these blocks are written thousands of times per
 * export, and one fixed layout keeps every export byte-stable. What it writes is read back by
 * `yaml` (YAML 1.2, core schema), and a test checks that every string round-trips.
 *
 * Strings are plain when plainly safe, otherwise double-quoted with JSON escapes (valid YAML
 * escapes) plus `\uXXXX` for the characters YAML does not allow raw. Nothing is ever written over
 * several lines, so no line of a block can look like a fence or a front-matter delimiter.
 */

type YamlValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly YamlValue[]
  | { readonly [key: string]: YamlValue };

export interface YamlLayout {
  /** Keys whose list values are written on one line (`[a, b]`); other lists are block lists. */
  flowLists?: ReadonlySet<string>;
}

// Core-schema words and numbers that would not read back as strings, plus YAML 1.1 booleans so
// other tools (Python's PyYAML, older editors) read the same strings.
const RESOLVES_AS_NON_STRING =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|0b[01]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|<<|=)$/;
// Plain scalars: printable characters only (astral ones included), no flow indicators, quotes or
// backslashes, no leading indicator or space, no trailing space or colon, no `: ` or ` #`.
// biome-ignore lint/suspicious/noControlCharactersInRegex: a plain scalar may hold no control character; they force quoting.
const PLAIN_CHARS = /^[^\x00-\x1f\x7f-\x9f,[\]{}\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff"\\]+$/u;
const PLAIN_BAD_FIRST = /^[\s\-?:#&*!|>'%@`]/u;
const PLAIN_BAD_LAST = /[\s:]$/u;
const NEEDS_ESCAPE_AFTER_JSON = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g;
const LONE_SURROGATE = /[\ud800-\udfff]/gu;

export function yamlString(s: string): string {
  if (
    PLAIN_CHARS.test(s) &&
    !PLAIN_BAD_FIRST.test(s) &&
    !PLAIN_BAD_LAST.test(s) &&
    !s.includes(': ') &&
    !s.includes(' #') &&
    !RESOLVES_AS_NON_STRING.test(s)
  )
    return s;
  return quoteYamlString(s);
}

export function quoteYamlString(s: string): string {
  // Why replace lone surrogates: UTF-8 cannot carry them; the export writes U+FFFD everywhere.
  const json = JSON.stringify(s.replace(LONE_SURROGATE, '\ufffd'));
  return json.replace(NEEDS_ESCAPE_AFTER_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function yamlScalar(value: string | number | boolean | null): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return yamlString(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return Number.isNaN(value) ? '.nan' : value > 0 ? '.inf' : '-.inf';
    return Object.is(value, -0) ? '-0.0' : String(value);
  }
  return value ? 'true' : 'false';
}

function isScalar(value: YamlValue): value is string | number | boolean | null {
  return value === null || typeof value !== 'object';
}

function flowValue(value: YamlValue): string {
  if (isScalar(value)) return yamlScalar(value);
  if (Array.isArray(value)) return `[${value.map(flowValue).join(', ')}]`;
  const entries = Object.entries(value as Record<string, YamlValue>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${yamlString(k)}: ${flowValue(v)}`).join(', ')}}`;
}

/** Appends the lines of a mapping, in the entries' order; `undefined` values are left out. */
export function writeYamlMapping(
  out: string[],
  entries: ReadonlyArray<readonly [string, YamlValue]>,
  layout: YamlLayout = {},
  indent = '',
): void {
  for (const [key, value] of entries) {
    if (value === undefined) continue;
    const head = `${indent}${yamlString(key)}:`;
    if (isScalar(value)) out.push(`${head} ${yamlScalar(value)}`);
    else if (Array.isArray(value)) {
      if (value.length === 0) out.push(`${head} []`);
      else if (layout.flowLists?.has(key)) out.push(`${head} ${flowValue(value)}`);
      else {
        out.push(head);
        writeYamlList(out, value, layout, `${indent}  `);
      }
    } else {
      const nested = Object.entries(value as Record<string, YamlValue>).filter(([, v]) => v !== undefined);
      if (nested.length === 0) out.push(`${head} {}`);
      else {
        out.push(head);
        writeYamlMapping(out, nested, layout, `${indent}  `);
      }
    }
  }
}

function writeYamlList(out: string[], items: readonly YamlValue[], layout: YamlLayout, indent: string): void {
  for (const item of items) {
    if (isScalar(item) || Array.isArray(item)) {
      out.push(`${indent}- ${flowValue(item)}`);
      continue;
    }
    const entries = Object.entries(item as Record<string, YamlValue>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) {
      out.push(`${indent}- {}`);
      continue;
    }
    const lines: string[] = [];
    writeYamlMapping(lines, entries, layout, `${indent}  `);
    lines[0] = `${indent}- ${lines[0]!.slice(indent.length + 2)}`;
    for (const line of lines) out.push(line);
  }
}

/** A whole mapping as block text (lines joined by LF, no final LF); `{}` when it has no entries. */
export function yamlMappingText(entries: ReadonlyArray<readonly [string, YamlValue]>, layout: YamlLayout = {}): string {
  const out: string[] = [];
  writeYamlMapping(out, entries, layout);
  return out.length === 0 ? '{}' : out.join('\n');
}

export type { YamlValue };
