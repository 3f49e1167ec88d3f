import type {
  FindingFieldName,
  FindingStatus,
  ProjectFieldName,
  ReportFieldName,
  ReportStatus,
  Severity,
} from '@service/report-model';
import {
  CATALOGUES,
  ENGLISH,
  fieldLabelKey,
  findingStatusKey,
  projectFieldLabelKey,
  reportFieldLabelKey,
  reportStatusKey,
  severityKey,
  type MessageCatalogue,
  type MessageKey,
} from './report-messages.ts';

type PluralKey = {
  [K in MessageKey]: K extends `${infer Base}_one` ? Base : never;
}[MessageKey];

/**
 * The language a document is written in: its messages (from the catalogue of the report's
 * language, English when there is none) and numbers and dates formatted the way that locale
 * writes them (`9,8` and `4. März 2024` in German).
 */
export interface ReportLocale {
  /** The BCP 47 tag Intl formats with (`de-DE`, `de`, `en`). */
  readonly tag: string;
  /** The catalogue's language: `de` or `en`. */
  readonly language: string;
  text(key: MessageKey, params?: Record<string, string | number>): string;
  /** A message by the plural category of `count` (`findingsInTotal` -> `findingsInTotal_one` / `_other`). */
  plural(key: PluralKey, count: number, params?: Record<string, string | number>): string;
  severity(s: Severity): string;
  findingStatus(s: FindingStatus): string;
  reportStatus(s: ReportStatus): string;
  fieldLabel(name: FindingFieldName): string;
  /** The label of a report field (`Report status`) and of a project field, in the report's language. */
  reportFieldLabel(name: ReportFieldName): string;
  projectFieldLabel(name: ProjectFieldName): string;
  /** A whole number with the locale's grouping: 1,234 or 1.234. */
  integer(n: number): string;
  /** A CVSS score with one decimal: 9.8 or 9,8; '' for none. */
  score(score: number | null): string;
  /** A model date (`YYYY-MM-DD`) written out ("4 March 2024"); the raw text when it is not a date. */
  date(date: string | null): string;
}

const locales = new Map<string, ReportLocale>();

/** The locale of a report language such as `de-DE`, `de` or `en`; unknown or malformed tags fall back to English. */
export function reportLocale(language: string | null | undefined): ReportLocale {
  const key = language ?? '';
  let locale = locales.get(key);
  if (!locale) {
    locale = createLocale(key);
    if (locales.size < 100) locales.set(key, locale);
  }
  return locale;
}

function intlTag(language: string): string {
  try {
    return Intl.getCanonicalLocales(language)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

function createLocale(language: string): ReportLocale {
  const tag = intlTag(language || 'en');
  const primary = tag.split('-')[0]!.toLowerCase();
  const catalogue: MessageCatalogue = CATALOGUES[primary] ?? ENGLISH;
  const integers = new Intl.NumberFormat(tag, { maximumFractionDigits: 0 });
  const scores = new Intl.NumberFormat(tag, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const dates = new Intl.DateTimeFormat(tag, { dateStyle: 'long', timeZone: 'UTC' });
  const plurals = new Intl.PluralRules(tag);
  const fill = (message: string, params?: Record<string, string | number>) =>
    params
      ? message.replace(/\{(\w+)\}/g, (whole, name: string) =>
          Object.hasOwn(params, name) ? String(params[name]) : whole,
        )
      : message;
  const text = (key: MessageKey, params?: Record<string, string | number>) =>
    fill(catalogue[key] ?? ENGLISH[key], params);
  return {
    tag,
    language: CATALOGUES[primary] ? primary : 'en',
    text,
    plural: (key, count, params) => {
      const category = plurals.select(count) === 'one' ? 'one' : 'other';
      return text(`${key}_${category}` as MessageKey, { count: integers.format(count), ...params });
    },
    severity: (s) => text(severityKey(s)),
    findingStatus: (s) => (catalogue[findingStatusKey(s)] === undefined ? s : text(findingStatusKey(s))),
    reportStatus: (s) => (catalogue[reportStatusKey(s)] === undefined ? s : text(reportStatusKey(s))),
    fieldLabel: (name) => text(fieldLabelKey(name)),
    reportFieldLabel: (name) => text(reportFieldLabelKey(name)),
    projectFieldLabel: (name) => text(projectFieldLabelKey(name)),
    integer: (n) => integers.format(n),
    score: (score) => (score === null ? '' : scores.format(score)),
    date: (date) => {
      if (!date) return '';
      const d = new Date(`${date}T00:00:00Z`);
      return Number.isNaN(d.getTime()) ? date : dates.format(d);
    },
  };
}
