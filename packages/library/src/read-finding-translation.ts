import { MarkdownFormatError, type ParsedFindingFile, parseFindingFile } from '@service/markdown';
import { FINDING_TRANSLATABLE_FIELD_NAMES } from '@service/report-model';
import type { FindingTranslation } from './library-item.ts';
import type { ProblemList, SourcePosition } from './library-problem.ts';
import { readFrontMatterFile } from './library-text.ts';
import { isKebabKey, isLanguageCode } from './parsed-item.ts';
import { reportMarkdownMessage } from './read-finding-template.ts';

/** A translation file read on its own: which template and language, and the translated fields. */
export interface ParsedTranslation {
  file: string;
  key: string;
  language: string;
  translation: FindingTranslation;
  keyAt: SourcePosition;
  languageAt: SourcePosition;
}

/** The only front-matter keys of a translation: everything else of a template is not translated. */
const TRANSLATION_KEYS = ['key', 'language'];

/**
 * Reads `finding-templates/translations/<lang>/<key>.md`: front matter with `key` and `language`,
 * then the translated `# title` and any of the three sections, in the finding file format.
 */
export function readFindingTranslation(
  text: string,
  file: string,
  folderLanguage: string,
  fileKey: string,
  problems: ProblemList,
): ParsedTranslation | null {
  const split = readFrontMatterFile(text, problems);
  if (!split) return null;
  const front = split.front;
  const value = front.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.error(front.at(''), 'the front matter must be a mapping with `key` and `language`');
    return null;
  }
  const fields = value as Record<string, unknown>;
  let ok = true;
  for (const name of Object.keys(fields)) {
    if (!TRANSLATION_KEYS.includes(name)) {
      problems.error(
        front.keyAt(`/${name}`),
        `\`${name}\` cannot be translated: a translation's front matter holds only \`key\` ` +
          `and \`language\`; the title and the Description, Impact and Remediation sections ` +
          `are the translated fields`,
      );
      ok = false;
    }
  }
  const key = fields.key;
  if (typeof key !== 'string' || !isKebabKey(key)) {
    problems.error(
      front.at('/key'),
      `\`key\` must name the English template this translates (kebab-case), found ${JSON.stringify(key ?? null)}`,
    );
    ok = false;
  } else if (key !== fileKey) {
    problems.error(front.at('/key'), `\`key: ${key}\` must equal the file name (${fileKey}.md)`);
    ok = false;
  }
  const language = fields.language;
  if (typeof language !== 'string' || !isLanguageCode(language)) {
    problems.error(
      front.at('/language'),
      `\`language\` must be a language code such as de, found ${JSON.stringify(language ?? null)}`,
    );
    ok = false;
  } else if (language !== folderLanguage) {
    problems.error(
      front.at('/language'),
      `\`language: ${language}\` must equal the folder name (translations/${folderLanguage}/)`,
    );
    ok = false;
  }
  if (!ok) return null;

  // Why: the finding format requires a severity, which a translation has none of. Reading the file
  // with `severity: info` added as the last front-matter line reuses the exact text rules of the
  // English templates (fences, sections); positions after that line are shifted back by one.
  const lines = text.split('\n');
  const injectedLine = split.closeLine + 1;
  lines.splice(split.closeLine, 0, 'severity: info');
  let parsed: ParsedFindingFile;
  try {
    parsed = parseFindingFile(lines.join('\n'));
  } catch (err) {
    if (!(err instanceof MarkdownFormatError)) throw err;
    reportMarkdownMessage(err.message, problems, injectedLine);
    return null;
  }
  for (const warning of parsed.warnings) reportMarkdownMessage(warning, problems, injectedLine);
  const translation: FindingTranslation = { title: parsed.finding.title };
  for (const field of FINDING_TRANSLATABLE_FIELD_NAMES) {
    if (parsed.finding[field] !== '') translation[field] = parsed.finding[field];
  }
  return {
    file,
    key: key as string,
    language: language as string,
    translation,
    keyAt: front.at('/key'),
    languageAt: front.at('/language'),
  };
}
