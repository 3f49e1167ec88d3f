import { LanguageSchema } from '@service/report-model';
import { Compile } from 'typebox/compile';
import type { LibraryContentOf, LibraryKind } from './library-item.ts';
import type { ProblemList, SourcePosition } from './library-problem.ts';

/** Another item an item names by key, and where it names it (checked once every file is read). */
export interface ItemReference {
  kind: LibraryKind;
  key: string;
  /** The field as the file spells it, for messages: `style`, `tabs[2].narrative`. */
  field: string;
  at: SourcePosition;
}

/** One library file read and checked on its own, before cross-references are resolved. */
export interface ParsedItem<K extends LibraryKind = LibraryKind> {
  kind: K;
  key: string;
  file: string;
  content: LibraryContentOf[K];
  keyAt: SourcePosition;
  references: ItemReference[];
  /** Finding templates: where each declared rule id / match CVE / match CWE is, for overlap messages. */
  matchAt?: Map<string, SourcePosition>;
  /** Report styles: the Word template file named, and where. */
  wordTemplate?: { fileName: string; at: SourcePosition };
}

const KEY_FORM = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * Checks an item's `key`: present, kebab-case, and equal to the file name, so a file can be found
 * from its key and renaming one is a visible change. Returns the key, or null when unusable.
 */
export function checkItemKey(
  value: unknown,
  fileKey: string,
  at: SourcePosition,
  problems: ProblemList,
): string | null {
  if (value === undefined) {
    problems.error(at, `\`key\` is required: add \`key: ${fileKey}\` (the file name without its extension)`);
    return null;
  }
  if (typeof value !== 'string' || !KEY_FORM.test(value) || value.length > 200) {
    problems.error(
      at,
      `\`key\` must be kebab-case (lower-case letters and digits separated by single ` +
        `hyphens), found ${JSON.stringify(value)}`,
    );
    return null;
  }
  if (value !== fileKey) {
    problems.error(
      at,
      `\`key: ${value}\` must equal the file name: rename the file to ${value}.<ext> or write \`key: ${fileKey}\``,
    );
    return null;
  }
  return value;
}

export const isKebabKey = (value: string): boolean => KEY_FORM.test(value);

const languageCheck = Compile(LanguageSchema);

/** A language code as report-model defines it (`en`, `de`, `de-DE`). */
export const isLanguageCode = (value: unknown): value is string => languageCheck.Check(value);
