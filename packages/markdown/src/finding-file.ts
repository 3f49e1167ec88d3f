import { stringify } from 'yaml';
import { emptyFinding, findingContentOf, FindingContentSchema, type FindingContent } from '@service/report-model';
import { FieldReader } from './field-reader.ts';
import {
  FINDING_FILE_KEYS,
  FINDING_FILE_SECTIONS,
  FINDING_YAML_LAYOUT,
  findingYamlEntries,
  readFindingFields,
} from './finding-fields.ts';
import { headingDisplay, isHeadingSafe, readHeading } from './heading-title.ts';
import { MarkdownFormatError, type SourcePosition } from './markdown-format-error.ts';
import { MARKDOWN_LIMITS } from './markdown-limits.ts';
import { readYamlBlock } from './read-yaml-block.ts';
import { SchemaCheck } from './schema-problem.ts';
import { readSourceText, type SourceText } from './source-text.ts';
import { readTextField, textFieldBlock } from './text-field.ts';
import { writeYamlMapping } from './write-yaml.ts';

/** One finding template as the global library stores it: the finding plus the library's own keys. */
export interface FindingFile {
  finding: FindingContent;
  /**
   * Front-matter keys this format does not define (the library's `key`, `language`, `match`, ...),
   * in file order, untouched. Written with scalar values (key, language) before the finding's
   * fields and structured values (match, translations) after them.
   */
  extra: Record<string, unknown>;
}

export interface ParsedFindingFile extends FindingFile {
  /**
   * Where each front-matter key and list item is, by JSON Pointer (`/key`, `/match/nessus/0`),
   * so the caller can name the line of a problem it finds in `extra`.
   */
  positions: Map<string, SourcePosition>;
  warnings: string[];
}

export interface ParseFindingFileOptions {
  /** Largest accepted file in UTF-8 bytes; default MARKDOWN_LIMITS.findingFileBytes. */
  maxBytes?: number;
}

const KNOWN = new Set<string>(FINDING_FILE_KEYS);
/** "`## Description`, `## Impact` or `## Remediation`" */
const SECTION_HEADINGS = FINDING_FILE_SECTIONS.map((s) => `\`## ${s.heading}\``)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');
const findingCheck = new SchemaCheck(FindingContentSchema);

/** Writes a finding file: front matter (extra keys, then the finding's fields), `# title`, sections. */
export function serializeFindingFile(file: FindingFile): string {
  const { finding, extra } = file;
  const front: string[] = [];
  const scalarExtras: Array<[string, unknown]> = [];
  const structuredExtras: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) continue;
    if (KNOWN.has(key))
      throw new TypeError(`serializeFindingFile: extra key "${key}" is a finding field; pass it in \`finding\``);
    (value !== null && typeof value === 'object' ? structuredExtras : scalarExtras).push([key, value]);
  }
  // Why this order: identity first (key, language), then the finding, then long structures (match).
  for (const [key, value] of scalarExtras) front.push(extraYaml(key, value));
  writeYamlMapping(front, findingYamlEntries(finding, false), FINDING_YAML_LAYOUT);
  for (const [key, value] of structuredExtras) front.push(extraYaml(key, value));
  const blocks = [
    `---\n${front.join('\n')}\n---`,
    `# ${isHeadingSafe(finding.title) ? finding.title : headingDisplay(finding.title)}`,
  ];
  for (const { field, heading } of FINDING_FILE_SECTIONS) {
    blocks.push(`## ${heading}`);
    const block = textFieldBlock(finding[field], 'markdown');
    if (block !== null) blocks.push(block);
  }
  return `${blocks.join('\n\n')}\n`;
}

function extraYaml(key: string, value: unknown): string {
  // Why no aliases: the reader refuses them (a few bytes of aliases can expand into gigabytes).
  return stringify(
    { [key]: value },
    { version: '1.2', lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false },
  ).replace(/\n$/, '');
}

const isFrontMatterFence = (line: string) => /^---[ \t]*$/.test(line);

/** Index of the line closing front matter opened on line 0; throws when there is none. */
export function findFrontMatterEnd(source: SourceText, what: string): number {
  if (source.lineCount === 0 || !isFrontMatterFence(source.line(0))) {
    throw new MarkdownFormatError(
      source.position(0),
      'front matter starting with a line `---`',
      `expected ${what} to start with front matter: a line \`---\`, YAML fields, and a closing line \`---\``,
    );
  }
  for (let i = 1; i < source.lineCount; i++) {
    if (source.firstChar(i) === 45 || source.firstChar(i) === 46) {
      const line = source.line(i);
      if (isFrontMatterFence(line) || /^\.\.\.[ \t]*$/.test(line)) return i;
    }
  }
  throw new MarkdownFormatError(
    source.position(0),
    'a line `---` closing the front matter',
    'the front matter opened on line 1 is never closed: expected a line `---` after its fields',
  );
}

/**
 * Reads a finding file. Front-matter keys other than the finding's fields are returned in `extra`
 * untouched; problems throw MarkdownFormatError with the line and column.
 */
export function parseFindingFile(text: string | Uint8Array, options: ParseFindingFileOptions = {}): ParsedFindingFile {
  const source = readSourceText(text, options.maxBytes ?? MARKDOWN_LIMITS.findingFileBytes, 'finding file');
  const close = findFrontMatterEnd(source, 'a finding file');
  const block = readYamlBlock(source, 1, close, 'the front matter');
  const reader = new FieldReader(block, 'the front matter');
  const warnings: string[] = [];
  const { fields, unknown } = readFindingFields(reader, block.value ?? {}, FINDING_FILE_KEYS, warnings);
  const extra: Record<string, unknown> = {};
  for (const [key, value] of unknown) extra[key] = value;

  let i = close + 1;
  while (i < source.lineCount && source.isBlank(i)) i++;
  const title = i < source.lineCount ? readHeading(source.line(i)) : null;
  if (title?.level !== 1)
    throw new MarkdownFormatError(
      source.position(i),
      "the finding's title as a heading `# ...`",
      "expected the finding's title as a level-1 heading `# ...` after the front matter",
    );
  const titleLine = i;
  const endsField = (line: number) => {
    const h = source.firstChar(line) === 35 ? readHeading(source.line(line)) : null;
    return h !== null && h.level <= 2;
  };
  const texts = new Map<string, string>();
  const sectionLines = new Map<string, number>();
  i++;
  for (;;) {
    while (i < source.lineCount && source.isBlank(i)) i++;
    if (i >= source.lineCount) break;
    const h = readHeading(source.line(i));
    const section =
      h?.level === 2 ? FINDING_FILE_SECTIONS.find((s) => s.heading.toLowerCase() === h.text.toLowerCase()) : undefined;
    if (!section) {
      if (h?.level === 1)
        throw new MarkdownFormatError(
          source.position(i),
          SECTION_HEADINGS,
          `a finding file holds one finding: expected ${SECTION_HEADINGS}, not a second level-1 heading`,
        );
      throw new MarkdownFormatError(
        source.position(i),
        SECTION_HEADINGS,
        `expected a section heading ${SECTION_HEADINGS}${h ? `, found \`${'#'.repeat(h.level)} ${h.text}\`` : ''}`,
      );
    }
    if (sectionLines.has(section.field))
      throw new MarkdownFormatError(
        source.position(i),
        `one \`## ${section.heading}\` section`,
        `\`## ${section.heading}\` appears twice (first on line ${sectionLines.get(section.field)! + 1})`,
      );
    sectionLines.set(section.field, i);
    const read = readTextField(source, i + 1, 'markdown', endsField, `the ${section.heading.toLowerCase()}`);
    texts.set(section.field, read.value);
    i = read.next;
  }

  let findingTitle = title.text;
  if (fields.title !== undefined) {
    findingTitle = fields.title;
    if (title.text !== fields.title && title.text !== headingDisplay(fields.title)) {
      warnings.push(
        `line ${titleLine + 1}, column 1: the heading reads "${title.text}" but the front ` +
          `matter's \`title\` is ${JSON.stringify(fields.title)}; the \`title\` key wins`,
      );
    }
  } else if (findingTitle === '') {
    throw new MarkdownFormatError(
      source.position(titleLine),
      'a title after `# `',
      "the title heading is empty: write the finding's title after `# `",
    );
  }
  const finding: FindingContent = findingContentOf({
    ...emptyFinding(findingTitle, fields.severity),
    ...fields,
    ...Object.fromEntries(texts),
    title: findingTitle,
  });
  const problem = findingCheck.firstProblem(finding);
  if (problem) {
    const field = problem.path.split('/')[1] ?? '';
    const at =
      field === 'title' && fields.title === undefined
        ? source.position(titleLine)
        : sectionLines.has(field)
          ? source.position(sectionLines.get(field)!)
          : reader.position(problem.path);
    throw new MarkdownFormatError(
      at,
      `a valid \`${field}\``,
      `\`${problem.path.slice(1).replaceAll('/', '.')}\` ${problem.message}`,
      { path: problem.path },
    );
  }
  return { finding, extra, positions: block.positions, warnings };
}
