import { Type } from 'typebox';

/** Size caps of the model's text fields, in one place so schemas, parsers and renderers agree. */
export const TEXT_LIMITS = {
  title: 500,
  /** description, impact, remediation, tab content, report summary */
  markdown: 1_000_000,
  tabContent: 2_000_000,
  reference: 4_000,
  references: 1_000,
  url: 8_192,
  /** an asset's host: a name, an address, or (Nessus, unparsed) whatever the scanner called it */
  host: 2_048,
  assetEvidence: 1_000_000,
  /** what documents show of an asset's evidence; computed excerpts keep to 1,500 (EXCERPT_CHARS) */
  assetExcerpt: 2_000,
  assets: 100_000,
  cves: 10_000,
  cwes: 1_000,
  cvssEntries: 10,
} as const;

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' });
export const IsoDate = Type.String({ format: 'date' });

export const Title = (maxLength: number = TEXT_LIMITS.title) => Type.String({ minLength: 1, maxLength });
export const MarkdownText = (maxLength: number = TEXT_LIMITS.markdown, description = 'Markdown.') =>
  Type.String({ maxLength, description });
