import { isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
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
    const locate = () => (located ??= readWithYaml(source, from, text, what));
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
  try {
    const doc = parseDocument(text, {
      version: '1.2',
      schema: 'core',
      uniqueKeys: true,
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
    value = doc.toJS({ maxAliasCount: 0 });
    if (doc.contents) collectPositions(doc.contents as YamlNode, '', positions, keys, at);
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

function collectPositions(
  node: YamlNode,
  path: string,
  out: Map<string, SourcePosition>,
  keys: Map<string, SourcePosition>,
  at: (offset: number) => SourcePosition,
): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as YamlNode | null;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const child = `${path}/${escapePointer(key)}`;
      // Why the value's position for a scalar: a message about `severity: hgih` points at `hgih`.
      const valueNode = pair.value as YamlNode | null;
      const range = isScalar(valueNode) && valueNode.range ? valueNode.range : keyNode?.range;
      if (range) out.set(child, at(range[0]));
      if (keyNode?.range) keys.set(child, at(keyNode.range[0]));
      if (pair.value) collectPositions(pair.value as YamlNode, child, out, keys, at);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      const child = `${path}/${i}`;
      const range = (item as YamlNode | null)?.range;
      if (range) out.set(child, at(range[0]));
      if (item) collectPositions(item as YamlNode, child, out, keys, at);
    });
  }
}
