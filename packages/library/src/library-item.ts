import type { ScanFormat } from '@service/scanners';
import type {
  FindingContent,
  FindingTranslation as ModelFindingTranslation,
  ReportStyle,
  TabPlacement,
} from '@service/report-model';

/** The six kinds of SPEC "Global library", each in its own folder of `library/`. */
export const LIBRARY_KINDS = [
  'report-style',
  'narrative',
  'report-template',
  'scoping-template',
  'project-type',
  'finding-template',
] as const;
export type LibraryKind = (typeof LIBRARY_KINDS)[number];

/** Folder of each kind under `library/`, and the file extension its items use. */
export const KIND_FOLDERS: Readonly<Record<LibraryKind, { folder: string; extension: '.md' | '.yaml' }>> = {
  'finding-template': { folder: 'finding-templates', extension: '.md' },
  'report-template': { folder: 'report-templates', extension: '.yaml' },
  'report-style': { folder: 'report-styles', extension: '.yaml' },
  narrative: { folder: 'narratives', extension: '.md' },
  'scoping-template': { folder: 'scoping-templates', extension: '.yaml' },
  'project-type': { folder: 'project-types', extension: '.yaml' },
};

/** The scanners whose rule ids and titles a finding template can match. */

/**
 * What a finding template matches, normalised: rule ids as `<scanner>:<rule id>` (the form the
 * workspace's `scanner_rules` column holds), CVEs and CWEs to match on, and title patterns per scanner.
 */
export interface TemplateMatchRules {
  rules: string[];
  cves: string[];
  cwes: number[];
  titlePatterns: Partial<Record<ScanFormat, string[]>>;
  /** a generic template: its patterns and conditions lose to every specific template's */
  fallback: boolean;
}

/** A translation of a finding template's text (its title is always translated); fields left out are not. */
export type FindingTranslation = ModelFindingTranslation & { title: string };

export interface FindingTemplateContent extends FindingContent {
  language: string;
  match: TemplateMatchRules;
  /** By language (`de`): the translated text fields. */
  translations: Record<string, FindingTranslation>;
}

/** The Word template file a library style uses instead of our own DOCX layout. */
export interface LibraryFileRef {
  fileName: string;
  sha256: string;
  size: number;
}

export interface ReportStyleContent extends ReportStyle {
  wordTemplate: LibraryFileRef | null;
}

export interface NarrativeContent {
  title: string;
  category: string;
  description: string;
  language: string;
  /** Markdown. */
  content: string;
}

export interface ReportTemplateTabContent {
  title: string;
  /** The narrative the tab's text comes from, or null for a tab with its own text. */
  narrative: string | null;
  /** The tab's Markdown: the narrative's text when `narrative` is set (resolved when the library is read). */
  content: string;
  /** Before the findings (summary, scope) or after them (appendices). */
  placement: TabPlacement;
}

export interface ReportTemplateContent {
  name: string;
  description: string;
  language: string;
  /** Key of the report style reports made from this template use, or null for the default style. */
  style: string | null;
  tabs: ReportTemplateTabContent[];
}

export const QUESTION_TYPES = [
  'text',
  'textarea',
  'number',
  'yes-no',
  'choice',
  'multi-choice',
  'date',
  'list',
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export interface ScopingQuestion {
  id: string;
  text: string;
  type: QuestionType;
  help?: string;
  required: boolean;
  options?: string[];
}

export interface ScopingSection {
  title: string;
  description?: string;
  questions: ScopingQuestion[];
}

export interface ScopingTemplateContent {
  name: string;
  description: string;
  language: string;
  sections: ScopingSection[];
}

export interface ProjectTypeContent {
  name: string;
  description: string;
  language: string;
  reportTemplate: string;
  retestReportTemplate: string | null;
  scopingTemplate: string | null;
  estimatedDays: { min: number; max: number } | null;
  standards: string[];
  checklist: string[];
}

export interface LibraryContentOf {
  'finding-template': FindingTemplateContent;
  'report-template': ReportTemplateContent;
  'report-style': ReportStyleContent;
  narrative: NarrativeContent;
  'scoping-template': ScopingTemplateContent;
  'project-type': ProjectTypeContent;
}

/** One item of the library: its kind, stable key, content revision, language and content. */
export type LibraryItem = {
  [K in LibraryKind]: {
    kind: K;
    key: string;
    /** Short SHA-256 of the item's canonical content: changes exactly when the content does. */
    revision: string;
    /** The item's language; null for report styles, which have no text of their own. */
    language: string | null;
    content: LibraryContentOf[K];
  };
}[LibraryKind];

export type LibraryItemOf<K extends LibraryKind> = Extract<LibraryItem, { kind: K }>;

/** A file an item refers to (a style's Word template), with its bytes. */
export interface LibraryFile extends LibraryFileRef {
  bytes: Uint8Array;
}

/** A whole library: what one release ships. */
export interface Library {
  /** Short digest over every item's kind, key and revision. */
  version: string;
  /** Sorted by kind (in LIBRARY_KINDS order), then key. */
  items: LibraryItem[];
  /** Files items refer to, by SHA-256. */
  files: LibraryFile[];
}

export const itemsOfKind = <K extends LibraryKind>(library: Pick<Library, 'items'>, kind: K): LibraryItemOf<K>[] =>
  library.items.filter((i): i is LibraryItemOf<K> => i.kind === kind);
