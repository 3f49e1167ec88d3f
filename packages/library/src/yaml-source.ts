import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import type { ProblemList, SourcePosition } from './library-problem.ts';

/** A YAML document read from a library file: its value and where each part of it is. */
export class YamlSource {
  constructor(
    readonly value: unknown,
    /** Position of each mapping key (`/tabs/0/title`) and list item (`/tabs/0`), by JSON Pointer. */
    private readonly keys: Map<string, SourcePosition>,
    /** Position of each value, by JSON Pointer. */
    private readonly values: Map<string, SourcePosition>,
    private readonly start: SourcePosition,
  ) {}

  /** Where the value at `pointer` is, or its nearest ancestor when it is missing. */
  at(pointer: string): SourcePosition {
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const found = this.values.get(p) ?? this.keys.get(p);
      if (found) return found;
      if (p === '') return this.start;
    }
  }

  /** Where the key of the member at `pointer` is (for "unknown key" messages). */
  keyAt(pointer: string): SourcePosition {
    return this.keys.get(pointer) ?? this.at(pointer);
  }
}

export const escapePointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Reads YAML 1.2 (core schema: no custom tags, unique keys; aliases refused, so a small file
 * cannot expand into a huge value). `firstLine` is the 1-based line of the text's first line in
 * its file, so positions point into the file. Problems go to `problems`; null when it does not parse.
 */
export function readYaml(text: string, firstLine: number, problems: ProblemList, what: string): YamlSource | null {
  const lineCounter = new LineCounter();
  const toPosition = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line: line + firstLine - 1, column: col };
  };
  const start = { line: firstLine, column: 1 };
  try {
    const doc = parseDocument(text, {
      version: '1.2',
      schema: 'core',
      uniqueKeys: true,
      strict: true,
      prettyErrors: false,
      lineCounter,
    });
    if (doc.errors.length > 0) {
      for (const error of doc.errors.slice(0, 5)) {
        problems.error(
          toPosition(error.pos[0]),
          `${what} is not valid YAML: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
        );
      }
      return null;
    }
    const value = doc.toJS({ maxAliasCount: 0 }) as unknown;
    const keys = new Map<string, SourcePosition>();
    const values = new Map<string, SourcePosition>();
    if (doc.contents) {
      const range = (doc.contents as YamlNode).range;
      if (range) values.set('', toPosition(range[0]));
      collectPositions(doc.contents as YamlNode, '', keys, values, toPosition);
    }
    return new YamlSource(value ?? null, keys, values, start);
  } catch (err) {
    const message =
      err instanceof RangeError
        ? 'it is nested too deeply'
        : /alias/i.test(String((err as Error).message))
          ? 'YAML aliases (`*name`) are not allowed'
          : String((err as Error).message);
    problems.error(start, `${what} cannot be read: ${message}`);
    return null;
  }
}

function collectPositions(
  node: YamlNode,
  path: string,
  keys: Map<string, SourcePosition>,
  values: Map<string, SourcePosition>,
  at: (offset: number) => SourcePosition,
): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as YamlNode | null;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const child = `${path}/${escapePointer(key)}`;
      if (keyNode?.range) keys.set(child, at(keyNode.range[0]));
      const valueNode = pair.value as YamlNode | null;
      if (valueNode?.range) values.set(child, at(valueNode.range[0]));
      if (valueNode) collectPositions(valueNode, child, keys, values, at);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      const child = `${path}/${i}`;
      const range = (item as YamlNode | null)?.range;
      if (range) {
        keys.set(child, at(range[0]));
        values.set(child, at(range[0]));
      }
      if (item) collectPositions(item as YamlNode, child, keys, values, at);
    });
  }
}
