import { Type } from 'typebox';
import { MarkdownText, Title, Uuid } from './text.ts';

export const REPORT_STATUSES = ['draft', 'review', 'final'] as const;
export const ReportStatusSchema = Type.Enum([...REPORT_STATUSES]);
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export const LanguageSchema = Type.String({
  pattern: '^[a-z]{2}(-[A-Z]{2})?$',
  maxLength: 5,
  description: 'BCP 47 language, e.g. `en` or `de-DE`.',
});

export const FINDING_ORDERS = ['severity', 'manual'] as const;
export type FindingOrder = (typeof FINDING_ORDERS)[number];
export const FindingOrderSchema = Type.Enum([...FINDING_ORDERS], {
  description:
    '`severity`: findings worst first (severity, then CVSS base score, then title), kept so after every ' +
    'import, attachment and change; `manual`: the order set with `PUT /reports/{id}/finding-order`.',
});

export const PROJECT_STATUSES = ['planned', 'active', 'completed', 'archived'] as const;

export const ClientContactSchema = Type.Object(
  {
    name: Type.String({ maxLength: 200 }),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    phone: Type.Optional(Type.String({ maxLength: 50 })),
    role: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const ClientProperties = {
  name: Title(300),
  shortName: Type.Union([Type.String({ maxLength: 50 }), Type.Null()]),
  description: MarkdownText(100_000),
  website: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]),
  contacts: Type.Array(ClientContactSchema, { maxItems: 100 }),
};

export const TAB_PLACEMENTS = ['before', 'after'] as const;
export type TabPlacement = (typeof TAB_PLACEMENTS)[number];

export const EVIDENCE_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/**
 * The largest evidence image: pixels in all, pixels on each side, and the bytes it takes decoded
 * (width × height × channels × bytes per sample × frames). Uploads over any of them are refused;
 * documents show an older stored image over them as a placeholder line, so neither the scaling
 * for print nor the PDF converter is ever given one. A 7680 × 4320 screenshot or a 1920 × 20000
 * scrolled page fits.
 */
export const EVIDENCE_IMAGE_LIMITS = {
  maxPixels: 40_000_000,
  maxSide: 20_000,
  maxDecodedBytes: 256 * 1024 * 1024,
} as const;

/**
 * An evidence image as documents refer to it: by the SHA-256 of its bytes (stable across
 * export and re-import), with its file name and caption. `id` is the workspace row when known.
 */
export const EvidenceRefSchema = Type.Object(
  {
    id: Type.Optional(Uuid),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    fileName: Type.String({ minLength: 1, maxLength: 255 }),
    caption: Type.String({ maxLength: 2000 }),
    contentType: Type.Optional(Type.Enum([...EVIDENCE_CONTENT_TYPES])),
  },
  { additionalProperties: false },
);
export type EvidenceRef = Type.Static<typeof EvidenceRefSchema>;
