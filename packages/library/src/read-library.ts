import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describeProblem, lintDocxTemplate } from '@service/docx';
import { FINDING_TRANSLATABLE_FIELD_NAMES } from '@service/report-model';
import { compareItems, itemRevision, libraryVersion } from './item-revision.ts';
import { LibraryError } from './library-error.ts';
import {
  KIND_FOLDERS,
  LIBRARY_KINDS,
  type Library,
  type LibraryFile,
  type LibraryItem,
  type LibraryKind,
} from './library-item.ts';
import { ProblemList, type LibraryProblem, type SourcePosition } from './library-problem.ts';
import { decodeLibraryText, LIBRARY_LIMITS } from './library-text.ts';
import type { ParsedItem } from './parsed-item.ts';
import { readFindingTemplate } from './read-finding-template.ts';
import { readFindingTranslation, type ParsedTranslation } from './read-finding-translation.ts';
import { germanTermProblem, placeholderProblem, wordingProblem } from './template-content-checks.ts';
import { readNarrative } from './read-narrative.ts';
import { readYamlItem } from './read-yaml-item.ts';

export interface ReadLibraryResult {
  /** The library, or null when any file has an error. */
  library: Library | null;
  /** Every error and warning, ordered by file and line. */
  problems: LibraryProblem[];
  /** Items read per kind (valid or not), and translation files. */
  counts: Record<LibraryKind, number> & { translations: number };
}

const KIND_LABELS: Record<LibraryKind, string> = {
  'finding-template': 'finding template',
  'report-template': 'report template',
  'report-style': 'report style',
  narrative: 'narrative',
  'scoping-template': 'scoping template',
  'project-type': 'project type',
};

export const kindLabel = (kind: LibraryKind): string => KIND_LABELS[kind];

interface FileEntry {
  /** Relative to the library folder, `/`-separated. */
  file: string;
  absolute: string;
}

/**
 * Reads and validates a whole library folder: every file against its kind's schema, then the
 * references between items (styles and narratives of report templates, templates of project
 * types, translations), key uniqueness across kinds, overlapping match rules, and the Word
 * template files styles name. Never throws for content problems: they are all in `problems`.
 */
export interface ReadLibraryOptions {
  /**
   * Languages every finding template must be completely translated into (`library:check` asks
   * for SHIPPED_TRANSLATIONS); none by default, so a workspace's or a test's library may be
   * English only.
   */
  requiredTranslations?: readonly string[];
}

export async function readLibrary(dir: string, options: ReadLibraryOptions = {}): Promise<ReadLibraryResult> {
  const problems: LibraryProblem[] = [];
  const counts = {
    ...(Object.fromEntries(LIBRARY_KINDS.map((k) => [k, 0])) as Record<LibraryKind, number>),
    translations: 0,
  };
  const parsed: ParsedItem[] = [];
  const translations: ParsedTranslation[] = [];
  const docxFiles = new Map<string, FileEntry>();
  // Keys of files that failed their own checks: references to them are not reported again.
  const failedKeys = new Set<string>();

  const rootEntries = await listFolder(dir, '', problems);
  const knownFolders = new Set(Object.values(KIND_FOLDERS).map((k) => k.folder));
  for (const entry of rootEntries.folders) {
    if (!knownFolders.has(entry))
      problems.push(
        warningAt(
          entry,
          `unknown folder \`${entry}/\` is ignored; library folders are ${[...knownFolders].join(', ')}`,
        ),
      );
  }

  for (const kind of LIBRARY_KINDS) {
    const { folder, extension } = KIND_FOLDERS[kind];
    if (!rootEntries.folders.includes(folder)) continue;
    const listing = await listFolder(path.join(dir, folder), folder, problems);
    for (const sub of listing.folders) {
      if (kind === 'finding-template' && sub === 'translations') continue;
      problems.push(
        errorAt(
          `${folder}/${sub}`,
          `unexpected folder \`${folder}/${sub}/\`: ${folder} holds one ${extension} file ` +
            `per item${kind === 'finding-template' ? ' and a translations/ folder' : ''}`,
        ),
      );
    }
    for (const entry of listing.files) {
      if (kind === 'report-style' && entry.file.endsWith('.docx')) {
        docxFiles.set(path.posix.basename(entry.file), entry);
        continue;
      }
      if (!entry.file.endsWith(extension)) {
        problems.push(
          errorAt(
            entry.file,
            `unexpected file: ${folder}/ holds one ${extension} file per ` +
              `${kindLabel(kind)}${kind === 'report-style' ? ' (and the .docx files styles name)' : ''}`,
          ),
        );
        continue;
      }
      counts[kind]++;
      const list = new ProblemList(entry.file);
      const item = await readItemFile(kind, entry, list);
      problems.push(...list.problems);
      if (item && !list.hasErrors) parsed.push(item);
      else failedKeys.add(path.posix.basename(entry.file, extension));
    }
    if (kind === 'finding-template' && listing.folders.includes('translations')) {
      await readTranslationFolders(
        path.join(dir, folder, 'translations'),
        `${folder}/translations`,
        problems,
        translations,
        counts,
      );
    }
  }

  const files = await readWordTemplates(parsed, docxFiles, problems);
  const items = resolveReferences(parsed, translations, failedKeys, problems, options.requiredTranslations ?? []);

  problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  if (problems.some((p) => p.level === 'error')) return { library: null, problems, counts };
  const withRevisions = items
    .map((item) => ({ ...item, revision: itemRevision(item.kind, item.key, item.content) }) as LibraryItem)
    .sort(compareItems);
  return { library: { version: libraryVersion(withRevisions), items: withRevisions, files }, problems, counts };
}

/** Reads a library folder and throws LibraryError (with every problem) when it has any error. */
export async function loadLibrary(dir: string): Promise<Library> {
  const result = await readLibrary(dir);
  if (!result.library) throw LibraryError.invalid(dir, result.problems);
  return result.library;
}

const errorAt = (file: string, message: string, at: SourcePosition = { line: 1, column: 1 }): LibraryProblem => ({
  file,
  ...at,
  message,
  level: 'error',
});
const warningAt = (file: string, message: string, at: SourcePosition = { line: 1, column: 1 }): LibraryProblem => ({
  file,
  ...at,
  message,
  level: 'warning',
});

/** Files and folders of one folder, sorted; links and other special files are refused, dot files skipped. */
async function listFolder(
  absolute: string,
  relative: string,
  problems: LibraryProblem[],
): Promise<{ files: FileEntry[]; folders: string[] }> {
  let entries: Dirent[];
  try {
    entries = await readdir(absolute, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && relative === '')
      throw new LibraryError('invalid_argument', `There is no library folder at ${absolute}.`, {
        hint: 'Pass the path of the folder that holds finding-templates/, narratives/, ...',
      });
    throw err;
  }
  const files: FileEntry[] = [];
  const folders: string[] = [];
  const rel = (name: string) => (relative === '' ? name : `${relative}/${name}`);
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) folders.push(entry.name);
    else if (entry.isFile()) {
      if (relative !== '') files.push({ file: rel(entry.name), absolute: path.join(absolute, entry.name) });
    } else {
      // Why: a link could point anywhere on the machine; library content is plain files only.
      problems.push(
        errorAt(
          rel(entry.name),
          'links and special files are not allowed in the library; replace it with a regular file',
        ),
      );
    }
    if (files.length > LIBRARY_LIMITS.filesPerKind) {
      problems.push(errorAt(relative, `more than ${LIBRARY_LIMITS.filesPerKind} files in one folder`));
      break;
    }
  }
  return { files, folders };
}

async function readItemFile(kind: LibraryKind, entry: FileEntry, problems: ProblemList): Promise<ParsedItem | null> {
  const text = await readText(entry.absolute, problems);
  if (text === null) return null;
  const fileKey = path.posix.basename(entry.file).replace(/\.(md|yaml)$/, '');
  switch (kind) {
    case 'finding-template':
      return readFindingTemplate(text, entry.file, fileKey, problems);
    case 'narrative':
      return readNarrative(text, entry.file, fileKey, problems);
    default:
      return readYamlItem(kind, text, entry.file, fileKey, problems);
  }
}

async function readText(absolute: string, problems: ProblemList): Promise<string | null> {
  const info = await lstat(absolute);
  if (info.size > LIBRARY_LIMITS.textFileBytes) {
    problems.error(
      { line: 1, column: 1 },
      `the file is ${info.size} bytes; library files may be at most ${LIBRARY_LIMITS.textFileBytes} bytes`,
    );
    return null;
  }
  return decodeLibraryText(await readFile(absolute), problems);
}

async function readTranslationFolders(
  absolute: string,
  relative: string,
  problems: LibraryProblem[],
  out: ParsedTranslation[],
  counts: { translations: number },
): Promise<void> {
  const languages = await listFolder(absolute, relative, problems);
  for (const file of languages.files)
    problems.push(
      errorAt(file.file, 'unexpected file: translations/ holds one folder per language (translations/de/<key>.md)'),
    );
  for (const language of languages.folders) {
    const listing = await listFolder(path.join(absolute, language), `${relative}/${language}`, problems);
    for (const sub of listing.folders)
      problems.push(
        errorAt(
          `${relative}/${language}/${sub}`,
          'unexpected folder: a language folder holds one <key>.md file per translated template',
        ),
      );
    for (const entry of listing.files) {
      if (!entry.file.endsWith('.md')) {
        problems.push(errorAt(entry.file, 'unexpected file: translations are <key>.md files'));
        continue;
      }
      counts.translations++;
      const list = new ProblemList(entry.file);
      const text = await readText(entry.absolute, list);
      const parsed =
        text === null
          ? null
          : readFindingTranslation(text, entry.file, language, path.posix.basename(entry.file, '.md'), list);
      problems.push(...list.problems);
      if (parsed && !list.hasErrors) out.push(parsed);
    }
  }
}

type UnrevisedItem = Omit<LibraryItem, 'revision'>;

/** Cross-file checks; returns the items with references resolved (narrative text in tabs, translations attached). */
function resolveReferences(
  parsed: ParsedItem[],
  translations: ParsedTranslation[],
  failedKeys: ReadonlySet<string>,
  problems: LibraryProblem[],
  requiredTranslations: readonly string[],
): UnrevisedItem[] {
  const byKey = new Map<string, ParsedItem>();
  for (const item of parsed) {
    const earlier = byKey.get(item.key);
    if (earlier) {
      problems.push(
        errorAt(
          item.file,
          `key \`${item.key}\` is already used by ${earlier.file} (a ` +
            `${kindLabel(earlier.kind)}); keys are unique across the whole library`,
          item.keyAt,
        ),
      );
      continue;
    }
    byKey.set(item.key, item);
  }

  for (const item of parsed) {
    for (const ref of item.references) {
      const target = byKey.get(ref.key);
      if (!target && failedKeys.has(ref.key)) continue;
      if (!target) {
        const known = parsed.filter((p) => p.kind === ref.kind).map((p) => p.key);
        problems.push(
          errorAt(
            item.file,
            `\`${ref.field}: ${ref.key}\` names no ` +
              `${kindLabel(ref.kind)}${known.length > 0 ? ` (known: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ', ...' : ''})` : ''}`,
            ref.at,
          ),
        );
      } else if (target.kind !== ref.kind) {
        problems.push(
          errorAt(
            item.file,
            `\`${ref.field}: ${ref.key}\` names a ${kindLabel(target.kind)} (${target.file}), ` +
              `not a ${kindLabel(ref.kind)}`,
            ref.at,
          ),
        );
      }
    }
  }

  for (const t of translations) {
    const template = byKey.get(t.key);
    if (!template && failedKeys.has(t.key)) continue;
    if (template?.kind !== 'finding-template') {
      problems.push(
        errorAt(
          t.file,
          `\`key: ${t.key}\` names no finding template; a translation needs finding-templates/${t.key}.md`,
          t.keyAt,
        ),
      );
      continue;
    }
    const content = (template as ParsedItem<'finding-template'>).content;
    if (content.language === t.language) {
      problems.push(
        errorAt(
          t.file,
          `the template ${t.key} is itself in language ${t.language}; a translation must be in another language`,
          t.languageAt,
        ),
      );
      continue;
    }
    content.translations[t.language] = t.translation;
    const text = [t.translation.title, t.translation.description, t.translation.impact, t.translation.remediation].join(
      '\n',
    );
    const wording =
      wordingProblem(content.severity, text) ??
      placeholderProblem(text) ??
      (t.language === 'de' ? germanTermProblem(text) : null);
    if (wording) problems.push(errorAt(t.file, wording, t.keyAt));
  }

  checkTranslationsComplete(
    parsed.filter((p): p is ParsedItem<'finding-template'> => p.kind === 'finding-template'),
    translations,
    requiredTranslations,
    problems,
  );

  checkMatchOverlaps(
    parsed.filter((p): p is ParsedItem<'finding-template'> => p.kind === 'finding-template'),
    problems,
  );

  const narratives = new Map(
    parsed.filter((p): p is ParsedItem<'narrative'> => p.kind === 'narrative').map((n) => [n.key, n.content.content]),
  );
  return [...byKey.values()].map((item) => {
    if (item.kind === 'report-template') {
      const content = (item as ParsedItem<'report-template'>).content;
      for (const tab of content.tabs) if (tab.narrative !== null) tab.content = narratives.get(tab.narrative) ?? '';
    }
    if (item.kind === 'finding-template') {
      const content = (item as ParsedItem<'finding-template'>).content;
      content.translations = Object.fromEntries(
        Object.entries(content.translations).sort(([a], [b]) => (a < b ? -1 : 1)),
      );
    }
    return {
      kind: item.kind,
      key: item.key,
      language: (item.content as { language?: string }).language ?? null,
      content: item.content,
    } as UnrevisedItem;
  });
}

/**
 * The languages the shipped library's finding templates are all translated into, besides English.
 * A report in one of them takes the template's text in it, so a missing or partial translation
 * would show as English text in a German report.
 */
export const SHIPPED_TRANSLATIONS = ['de'] as const;

/** Every required translation exists and has every section the template has: an error in the translation file (or the template, when there is none). */
function checkTranslationsComplete(
  templates: ParsedItem<'finding-template'>[],
  translations: ParsedTranslation[],
  requiredTranslations: readonly string[],
  problems: LibraryProblem[],
): void {
  const files = new Map(translations.map((t) => [`${t.language}/${t.key}`, t.file]));
  for (const template of templates) {
    const content = template.content;
    for (const language of requiredTranslations) {
      if (content.language === language) continue;
      const translation = content.translations[language];
      const file = files.get(`${language}/${template.key}`);
      if (!translation) {
        if (file === undefined)
          problems.push(
            errorAt(
              template.file,
              `the template has no ${language} translation; add finding-templates/translations/${language}/${template.key}.md ` +
                `with the title and every section`,
              template.keyAt,
            ),
          );
        continue;
      }
      const missing = FINDING_TRANSLATABLE_FIELD_NAMES.filter(
        (field) => field !== 'title' && (content[field] ?? '').trim() !== '' && !(translation[field] ?? '').trim(),
      );
      if (missing.length > 0)
        problems.push(
          errorAt(
            file ?? template.file,
            `the ${language} translation lacks ${missing.map((m) => `the ${m} section`).join(', ')}; ` +
              `every section the template has must be translated`,
          ),
        );
    }
  }
}

/**
 * A rule id, match CVE or match CWE declared by two templates sends every such finding to the
 * template whose key sorts first, so the other one is dead for it: an error in the later file.
 */
function checkMatchOverlaps(templates: ParsedItem<'finding-template'>[], problems: LibraryProblem[]): void {
  const owners = new Map<string, { item: ParsedItem<'finding-template'>; at: SourcePosition }>();
  for (const item of [...templates].sort((a, b) => (a.key < b.key ? -1 : 1))) {
    for (const [id, at] of item.matchAt ?? []) {
      const owner = owners.get(id);
      if (owner) {
        problems.push(
          errorAt(
            item.file,
            `${id} is already matched by ${owner.item.key} ` +
              `(${owner.item.file}:${owner.at.line}); a finding with it always goes to ` +
              `${owner.item.key}, so remove it from one of them`,
            at,
          ),
        );
      } else owners.set(id, { item, at });
    }
  }
}

/** Reads the Word template files styles name: present, within the size cap, a DOCX whose tags pass the DOCX linter. */
async function readWordTemplates(
  parsed: ParsedItem[],
  docxFiles: Map<string, FileEntry>,
  problems: LibraryProblem[],
): Promise<LibraryFile[]> {
  const files = new Map<string, LibraryFile>();
  const used = new Set<string>();
  for (const item of parsed) {
    if (item.kind !== 'report-style' || !item.wordTemplate) continue;
    const { fileName, at } = item.wordTemplate;
    used.add(fileName);
    const entry = docxFiles.get(fileName);
    if (!entry) {
      problems.push(
        errorAt(item.file, `\`wordTemplate: ${fileName}\`: there is no file report-styles/${fileName}`, at),
      );
      continue;
    }
    const info = await lstat(entry.absolute);
    if (info.size > LIBRARY_LIMITS.wordTemplateBytes) {
      problems.push(
        errorAt(
          item.file,
          `\`wordTemplate: ${fileName}\` is ${info.size} bytes; Word templates may be at ` +
            `most ${LIBRARY_LIMITS.wordTemplateBytes} bytes`,
          at,
        ),
      );
      continue;
    }
    const bytes = new Uint8Array(await readFile(entry.absolute));
    if (!looksLikeDocx(bytes)) {
      problems.push(
        errorAt(
          item.file,
          `\`wordTemplate: ${fileName}\` is not a Word document (.docx is a ZIP archive holding word/document.xml)`,
          at,
        ),
      );
      continue;
    }
    // Why the DOCX linter: a template whose tags do not work would only fail at the first export.
    const lint = lintDocxTemplate(bytes);
    if (!lint.ok) {
      for (const problem of lint.errors.slice(0, 20))
        problems.push(errorAt(item.file, `\`wordTemplate: ${fileName}\`: ${describeProblem(problem)}`, at));
      continue;
    }
    if (lint.missingStyles.length > 0) {
      problems.push(
        warningAt(
          item.file,
          `\`wordTemplate: ${fileName}\` lacks the styles ${lint.missingStyles.join(', ')}; ` +
            `Markdown in reports then uses direct formatting`,
          at,
        ),
      );
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const ref = { fileName, sha256, size: bytes.length };
    (item as ParsedItem<'report-style'>).content.wordTemplate = ref;
    files.set(sha256, { ...ref, bytes });
  }
  for (const name of docxFiles.keys()) {
    if (!used.has(name))
      problems.push(
        warningAt(
          `report-styles/${name}`,
          'no report style names this Word template (`wordTemplate:`); it is not shipped',
        ),
      );
  }
  return [...files.values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1));
}

function looksLikeDocx(bytes: Uint8Array): boolean {
  if (bytes.length < 30 || bytes[0] !== 0x50 || bytes[1] !== 0x4b || bytes[2] !== 0x03 || bytes[3] !== 0x04)
    return false;
  // Why a byte search: the entry name is stored uncompressed in the ZIP headers; opening the
  // archive here is left to the DOCX package, which lints templates properly.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).includes('word/document.xml');
}
