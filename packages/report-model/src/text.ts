import { Type } from 'typebox';

/** Size caps of the model's text fields, in one place so schemas, parsers and renderers agree. */
export const TEXT_LIMITS = {
  title: 500,
  /** description, impact, remediation, tab content, report summary */
  markdown: 1_000_000,
  tabContent: 2_000_000,
  reference: 4_000,
  references: 500,
  url: 8_000,
  assetEvidence: 1_000_000,
  assets: 10_000,
  cves: 1_000,
  cwes: 100,
  cvssEntries: 8,
} as const;

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' });
export const IsoDate = Type.String({ format: 'date' });

export const Title = (maxLength: number = TEXT_LIMITS.title) => Type.String({ minLength: 1, maxLength });
export const MarkdownText = (maxLength: number = TEXT_LIMITS.markdown, description = 'Markdown.') => Type.String({ maxLength, description });
