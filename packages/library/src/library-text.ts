import type { ProblemList } from './library-problem.ts';
import { readYaml, type YamlSource } from './yaml-source.ts';

/** Caps on what the library reader accepts, so a broken or hostile file is refused early. */
export const LIBRARY_LIMITS = {
  /** Largest Markdown or YAML file, in bytes. */
  textFileBytes: 1024 * 1024,
  /** Largest Word template file, in bytes. */
  wordTemplateBytes: 20 * 1024 * 1024,
  /** Files in one kind's folder (translations included). */
  filesPerKind: 5_000,
  /** Longest title pattern, in characters. */
  titlePatternChars: 300,
} as const;

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A library text file as UTF-8 with LF line endings and no byte order mark, or null (with the
 * problem reported) when it is too large, not UTF-8, or holds U+0000, which PostgreSQL cannot store.
 */
export function decodeLibraryText(bytes: Uint8Array, problems: ProblemList): string | null {
  const start = { line: 1, column: 1 };
  if (bytes.length > LIBRARY_LIMITS.textFileBytes) {
    problems.error(
      start,
      `the file is ${bytes.length} bytes; library files may be at most ${LIBRARY_LIMITS.textFileBytes} bytes`,
    );
    return null;
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    problems.error(start, 'the file is not valid UTF-8; save it as UTF-8');
    return null;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  text = text.replace(/\r\n?/g, '\n');
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    const before = text.slice(0, nul);
    const line = before.split('\n').length;
    problems.error(
      { line, column: nul - before.lastIndexOf('\n') },
      'the file holds the character U+0000, which no library field may contain',
    );
    return null;
  }
  return text;
}

/** A Markdown file split into its YAML front matter and its body. */
export interface FrontMatterFile {
  front: YamlSource;
  /** The text after the closing `---`, without blank lines at either end. */
  body: string;
  /** 1-based line of the body's first line. */
  bodyLine: number;
  /** 0-based index of the closing `---` line. */
  closeLine: number;
}

/** Splits `---` / YAML / `---` / body; null (problem reported) when there is no valid front matter. */
export function readFrontMatterFile(text: string, problems: ProblemList): FrontMatterFile | null {
  const lines = text.split('\n');
  const fence = /^---[ \t]*$/;
  if (!fence.test(lines[0] ?? '')) {
    problems.error(
      { line: 1, column: 1 },
      'expected front matter: a line `---`, YAML fields, and a closing line `---`',
    );
    return null;
  }
  const close = lines.findIndex((line, i) => i > 0 && (fence.test(line) || /^\.\.\.[ \t]*$/.test(line)));
  if (close < 0) {
    problems.error(
      { line: 1, column: 1 },
      'the front matter opened on line 1 is never closed: expected a line `---` after its fields',
    );
    return null;
  }
  const front = readYaml(lines.slice(1, close).join('\n'), 2, problems, 'the front matter');
  if (!front) return null;
  let first = close + 1;
  while (first < lines.length && lines[first]!.trim() === '') first++;
  let last = lines.length - 1;
  while (last >= first && lines[last]!.trim() === '') last--;
  return { front, body: lines.slice(first, last + 1).join('\n'), bodyLine: first + 1, closeLine: close };
}
