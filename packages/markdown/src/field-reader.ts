import { MarkdownFormatError, type SourcePosition } from './markdown-format-error.ts';
import type { YamlBlock } from './read-yaml-block.ts';

/**
 * Reads typed values out of a YAML block, failing with the position of the offending key or item
 * and a message naming the field ("`severity` must be one of ...").
 */
export class FieldReader {
  constructor(
    readonly block: YamlBlock,
    readonly what: string,
    private readonly pathPrefix = '',
  ) {}

  /** Position of the value at `path` (a JSON Pointer in the block), or of its nearest parent. */
  position(path: string): SourcePosition {
    for (let p = path; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const at = this.block.positions.get(p);
      if (at) return at;
      if (p === '') return this.block.start;
    }
  }

  fail(path: string, expected: string, problem: string): never {
    throw new MarkdownFormatError(this.position(path), expected, problem, { path: `${this.pathPrefix}${path}` });
  }

  mapping(value: unknown, path: string, name: string): Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      this.fail(
        path,
        `${name} as a YAML mapping (\`key: value\` lines)`,
        `${name} must be a mapping of \`key: value\` lines, found ${describe(value)}`,
      );
    return value as Record<string, unknown>;
  }

  string(value: unknown, path: string, name: string): string {
    if (typeof value !== 'string')
      this.fail(
        path,
        `text for \`${name}\``,
        `\`${name}\` must be text, found ` +
          `${describe(value)}${typeof value === 'number' || typeof value === 'boolean' ? ` (write it in quotes: "${String(value)}")` : ''}`,
      );
    return value;
  }

  stringOrNull(value: unknown, path: string, name: string): string | null {
    return value === null ? null : this.string(value, path, name);
  }

  oneOf<T extends string>(value: unknown, path: string, name: string, allowed: readonly T[]): T {
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      this.fail(
        path,
        `one of ${allowed.join(', ')}`,
        `\`${name}\` must be one of ${allowed.join(', ')}; found ${describe(value)}`,
      );
    }
    return value as T;
  }

  numberOrNull(value: unknown, path: string, name: string): number | null {
    if (value === null) return null;
    if (typeof value !== 'number' || !Number.isFinite(value))
      this.fail(
        path,
        `a number or null for \`${name}\``,
        `\`${name}\` must be a number or null, found ${describe(value)}`,
      );
    return value;
  }

  list(value: unknown, path: string, name: string, example: string): unknown[] {
    if (!Array.isArray(value))
      this.fail(
        path,
        `a list for \`${name}\``,
        `\`${name}\` must be a list (for example \`${name}: ${example}\`), found ${describe(value)}`,
      );
    return value;
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return `${typeof value} ${String(value)}`;
}
