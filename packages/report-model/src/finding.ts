import { Type } from 'typebox';
import { AffectedAssetListSchema } from './affected-asset.ts';
import { CvssSchema } from './cvss.ts';
import { SeveritySchema } from './severity.ts';
import { MarkdownText, TEXT_LIMITS, Title, Uuid } from './text.ts';

export const CveIdSchema = Type.String({
  pattern: '^CVE-\\d{4}-\\d{4,}$',
  maxLength: 30,
  description: 'CVE-YYYY-NNNN...',
});
export const CweIdSchema = Type.Integer({ minimum: 1, maximum: 100_000, description: 'CWE number (79 for CWE-79).' });

/**
 * The content a finding and a finding template share, property by property, so resource
 * declarations, the Markdown format and the library pick exactly these.
 */
export const FindingContentProperties = {
  title: Title(),
  severity: SeveritySchema,
  cvss: Type.Array(CvssSchema, { maxItems: TEXT_LIMITS.cvssEntries }),
  cves: Type.Array(CveIdSchema, { maxItems: TEXT_LIMITS.cves, uniqueItems: true }),
  cwes: Type.Array(CweIdSchema, { maxItems: TEXT_LIMITS.cwes, uniqueItems: true }),
  description: MarkdownText(),
  impact: MarkdownText(),
  remediation: MarkdownText(),
  references: Type.Array(Type.String({ maxLength: TEXT_LIMITS.reference }), { maxItems: TEXT_LIMITS.references }),
};
export const FindingContentSchema = Type.Object(FindingContentProperties, { additionalProperties: false });
export type FindingContent = Type.Static<typeof FindingContentSchema>;

export const FINDING_STATUSES = ['open', 'resolved', 'accepted-risk', 'false-positive'] as const;
export const FindingStatusSchema = Type.Enum([...FINDING_STATUSES]);
export type FindingStatus = (typeof FINDING_STATUSES)[number];

export const FINDING_SOURCE_KINDS = ['manual', 'template', 'scanner'] as const;

/** Where a finding came from: typed by hand, from a library template, or from a scanner rule. */
export const FindingSourceSchema = Type.Object(
  {
    kind: Type.Enum([...FINDING_SOURCE_KINDS]),
    templateKey: Type.Optional(
      Type.String({ maxLength: 300, description: 'Global library key of the template it came from.' }),
    ),
    templateId: Type.Optional(Uuid),
    scanner: Type.Optional(Type.String({ maxLength: 50 })),
    scannerVersion: Type.Optional(Type.String({ maxLength: 100 })),
    ruleId: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type FindingSource = Type.Static<typeof FindingSourceSchema>;

/** A finding's own properties beyond its content. */
export const FindingProperties = {
  ...FindingContentProperties,
  status: FindingStatusSchema,
  affectedAssets: AffectedAssetListSchema,
  source: FindingSourceSchema,
};
export const FindingSchema = Type.Object(FindingProperties, { additionalProperties: false });
export type Finding = Type.Static<typeof FindingSchema>;

/** An empty finding's values; imports and the Markdown reader start from these. */
export function emptyFinding(title: string, severity: Finding['severity']): Finding {
  return {
    title,
    severity,
    cvss: [],
    cves: [],
    cwes: [],
    description: '',
    impact: '',
    remediation: '',
    references: [],
    status: 'open',
    affectedAssets: [],
    source: { kind: 'manual' },
  };
}
