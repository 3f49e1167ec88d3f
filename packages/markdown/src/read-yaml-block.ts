import { isMap, isPair, isScalar, isSeq, Lexer, parseDocument, Parser, type CST, type Node as YamlNode } from 'yaml';
import { MarkdownFormatError, type SourcePosition } from './markdown-format-error.ts';
import { MARKDOWN_LIMITS } from './markdown-limits.ts';
import { readYamlSubset } from './read-yaml-subset.ts';
import type { SourceText } from './source-text.ts';

/** A YAML block read from a file: its value and where each part of it is. */
export interface YamlBlock {
  value: unknown;
  /**
   * Position of every mapping value (the key's, for a list or mapping) and list item, by JSON Pointer relative to the
   * block (`/cvss/0`).
   */
  positions: Map<string, SourcePosition>;
  /** Position of every mapping key, by the same pointers. */
  keys: Map<string, SourcePosition>;
  /** Position of the block's first line. */
  start: SourcePosition;
}

const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Reads lines [from, to) of a file as one YAML 1.2 document (core schema: no custom tags, no
 * timestamps, unique keys, aliases refused so a small file cannot expand into a large value).
 * `what` names the block in messages ("the front matter", "the YAML block of finding 3").
 */
export function readYamlBlock(source: SourceText, from: number, to: number, what: string): YamlBlock {
  const text = source.slice(from, to);
  const start = source.position(from);
  if (text.length > MARKDOWN_LIMITS.yamlBlockChars) {
    throw new MarkdownFormatError(
      start,
      `${what} of at most ${MARKDOWN_LIMITS.yamlBlockChars} characters`,
      `${what} is longer than ${MARKDOWN_LIMITS.yamlBlockChars} characters, the most a YAML block may hold`,
    );
  }
  const fast = readYamlSubset(text);
  if (fast !== undefined) {
    // Why lazy: positions are needed only to report a problem, and reading them costs a full parse.
    let located: { positions: Map<string, SourcePosition>; keys: Map<string, SourcePosition> } | null = null;
    // A block longer than `yaml` may read has no positions: messages then name the block's start.
    const locate = () =>
      (located ??=
        text.length > MAX_GENERAL_YAML_CHARS
          ? { positions: new Map(), keys: new Map() }
          : readWithYaml(source, from, text, what));
    return {
      value: fast,
      start,
      get positions() {
        return locate().positions;
      },
      get keys() {
        return locate().keys;
      },
    };
  }
  const { value, positions, keys } = readWithYaml(source, from, text, what);
  return { value, positions, keys, start };
}

function readWithYaml(
  source: SourceText,
  from: number,
  text: string,
  what: string,
): { value: unknown; positions: Map<string, SourcePosition>; keys: Map<string, SourcePosition> } {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const at = (offset: number): SourcePosition => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: from + lo + 1, column: offset - lineStarts[lo]! + 1 };
  };

  let value: unknown;
  const positions = new Map<string, SourcePosition>();
  const keys = new Map<string, SourcePosition>();
  if (text.length > MAX_GENERAL_YAML_CHARS)
    throw new MarkdownFormatError(
      source.position(from),
      `${what} of at most ${MAX_GENERAL_YAML_CHARS} characters, or written as the export writes it`,
      `${what} is longer than ${MAX_GENERAL_YAML_CHARS} characters and not written as the export writes YAML ` +
        '(two-space indents, one key or list item a line, plain or double-quoted values, no anchors or ' +
        'block scalars); ' +
        'shorten it or write it that way',
    );
  const shape = nestedDeeperThan(text, MAX_YAML_DEPTH)
    ? { depth: MAX_YAML_DEPTH + 1, anchorAt: null }
    : inspectYaml(text);
  if (shape.depth > MAX_YAML_DEPTH)
    throw new MarkdownFormatError(
      source.position(from),
      `YAML nested at most ${MAX_YAML_DEPTH} levels deep in ${what}`,
      `${what} is nested more than ${MAX_YAML_DEPTH} levels deep, the most allowed`,
    );
  if (shape.anchorAt !== null)
    throw new MarkdownFormatError(
      at(shape.anchorAt),
      `valid YAML in ${what}`,
      `${what} cannot be read: YAML anchors (\`&name\`) and aliases (\`*name\`) are not allowed`,
    );
  try {
    // Why our own check of unique keys (in collectPositions): `yaml`'s compares each key with every
    // earlier key of its mapping, quadratic in their number (20,000 keys took two seconds).
    const doc = parseDocument(text, {
      version: '1.2',
      schema: 'core',
      uniqueKeys: false,
      strict: true,
      prettyErrors: false,
    });
    const error = doc.errors[0];
    if (error) {
      const pos = error.linePos?.[0];
      const firstLine = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw new MarkdownFormatError(
        pos ? { line: from + pos.line, column: pos.col } : source.position(from),
        `valid YAML in ${what}`,
        `${what} is not valid YAML: ${firstLine}`,
      );
    }
    if (doc.contents) {
      const duplicate = collectPositions(doc.contents as YamlNode, '', positions, keys, at);
      if (duplicate)
        throw new MarkdownFormatError(
          duplicate,
          `valid YAML in ${what}`,
          `${what} is not valid YAML: Map keys must be unique`,
        );
    }
    value = doc.toJS({ maxAliasCount: 0 });
  } catch (err) {
    if (err instanceof MarkdownFormatError) throw err;
    const message =
      err instanceof RangeError
        ? 'it is nested too deeply'
        : /alias/i.test(String((err as Error).message))
          ? 'YAML aliases (`*name`) are not allowed'
          : String((err as Error).message);
    throw new MarkdownFormatError(
      source.position(from),
      `valid YAML in ${what}`,
      `${what} cannot be read: ${message}`,
      { cause: err },
    );
  }
  return { value, positions, keys };
}

/**
 * Longest block read with `yaml`, in characters (128 KiB). Why: `yaml` takes several microseconds a
 * character (seconds for a megabyte), which would let one request hold the process; blocks in the
 * form the export writes are read by readYamlSubset at any size, and hand-written ones are small.
 */
export const MAX_GENERAL_YAML_CHARS = 128 * 1024;

/**
 * Deepest nesting a YAML block may have. Why a limit, checked before `yaml` builds the document:
 * its composer recurses once per level, so `[[[[...` a few thousand deep overflows the stack, and
 * when that happens while V8 compiles a regular expression the process dies instead of throwing.
 */
export const MAX_YAML_DEPTH = 64;

/**
 * Whether the block's flow collections (`[`, `{`) and the list and key indicators (`- `, `? `) of
 * one line nest deeper than `max`, from `yaml`'s lexer, which stops reading there. Why before
 * inspectYaml: its parser takes a few microseconds per level of `[[[[...`, so ten blocks of
 * 100,000 would take seconds; this finds them after `max` tokens.
 */
function nestedDeeperThan(text: string, max: number): boolean {
  let flow = 0;
  let line = 0;
  let previous = '';
  for (const token of new Lexer().lex(text)) {
    // Why `previous`: the lexer marks a plain scalar with U+001F before it, so `-` there is text.
    if (previous !== '\u001f') {
      if (token === '[' || token === '{') flow += 1;
      else if (token === ']' || token === '}') flow = Math.max(0, flow - 1);
      else if (token === '-' || token === '?') line += 1;
      else if (token[0] === '\n' || token[0] === '\r') line = 0;
      if (flow + line > max) return true;
    }
    previous = token;
  }
  return false;
}

/**
 * How deep a block nests, and where its first anchor or alias is (our files have none; aliases
 * could expand a few bytes into gigabytes, and `yaml` resolves each against the whole document,
 * quadratic in their number), from the concrete syntax tree, which `yaml` builds without recursion
 * and which is walked here without it.
 */
function inspectYaml(text: string): { depth: number; anchorAt: number | null } {
  let depth = 0;
  let anchorAt: number | null = null;
  const stack: Array<[CST.Token, number]> = [];
  const note = (tokens: ReadonlyArray<CST.Token> | undefined) => {
    for (const t of tokens ?? []) if (t.type === 'anchor' && anchorAt === null) anchorAt = t.offset;
  };
  for (const token of new Parser().parse(text)) stack.push([token, 0]);
  while (stack.length > 0 && depth <= MAX_YAML_DEPTH && anchorAt === null) {
    const [token, level] = stack.pop()!;
    depth = Math.max(depth, level);
    if (token.type === 'alias') anchorAt = token.offset;
    if ('start' in token) note(Array.isArray(token.start) ? token.start : [token.start]);
    if ('props' in token) note(token.props);
    if ('value' in token && token.value && typeof token.value === 'object') stack.push([token.value, level + 1]);
    if ('items' in token) {
      for (const item of token.items as CST.CollectionItem[]) {
        note(item.start);
        note(item.sep);
        if (item.key) stack.push([item.key, level + 1]);
        if (item.value) stack.push([item.value, level + 1]);
      }
    }
  }
  return { depth, anchorAt };
}

function collectPositions(
  node: YamlNode,
  path: string,
  out: Map<string, SourcePosition>,
  keys: Map<string, SourcePosition>,
  at: (offset: number) => SourcePosition,
  seen = new Set<string>(),
): SourcePosition | null {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as YamlNode | null;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const child = `${path}/${escapePointer(key)}`;
      if (seen.has(child)) return at(keyNode?.range?.[0] ?? 0);
      seen.add(child);
      // Why the value's position for a scalar: a message about `severity: hgih` points at `hgih`.
      const valueNode = pair.value as YamlNode | null;
      const range = isScalar(valueNode) && valueNode.range ? valueNode.range : keyNode?.range;
      if (range) out.set(child, at(range[0]));
      if (keyNode?.range) keys.set(child, at(keyNode.range[0]));
      const duplicate = pair.value ? collectPositions(pair.value as YamlNode, child, out, keys, at, seen) : null;
      if (duplicate) return duplicate;
    }
  } else if (isSeq(node)) {
    for (const [i, item] of node.items.entries()) {
      const child = `${path}/${i}`;
      const range = (item as YamlNode | null)?.range;
      if (range) out.set(child, at(range[0]));
      const duplicate = item ? collectPositions(item as YamlNode, child, out, keys, at, seen) : null;
      if (duplicate) return duplicate;
    }
  }
  return null;
}
