import { Type } from 'typebox';
import type { Fields } from './field.ts';
import { Severity } from './field.ts';

export const CvssSchema = Type.Object(
  {
    version: Type.Enum(['2.0', '3.0', '3.1', '4.0']),
    vector: Type.Union([Type.String({ maxLength: 300 }), Type.Null()]),
    baseScore: Type.Union([Type.Number({ minimum: 0, maximum: 10 }), Type.Null()]),
    temporalScore: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 10 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const AffectedAssetSchema = Type.Object(
  {
    host: Type.Optional(Type.String({ maxLength: 2000, description: 'Host name, IP address or origin URL.' })),
    ip: Type.Optional(Type.String({ maxLength: 100 })),
    port: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Null()])),
    protocol: Type.Optional(Type.String({ maxLength: 20 })),
    service: Type.Optional(Type.String({ maxLength: 200 })),
    url: Type.Optional(Type.String({ maxLength: 8000 })),
    parameter: Type.Optional(Type.String({ maxLength: 2000 })),
    evidence: Type.Optional(Type.String({ maxLength: 1_000_000, description: 'Scanner output, request/response or notes for this asset.' })),
  },
  { additionalProperties: false },
);

const Cve = Type.String({ pattern: '^CVE-\\d{4}-\\d{4,}$', maxLength: 30 });

/** The content fields findings and finding templates share. */
export const findingContentFields: Fields = {
  title: { column: 'title', schema: Type.String({ minLength: 1, maxLength: 500 }), create: 'required', update: true },
  severity: { column: 'severity', schema: Severity, create: 'required', update: true },
  cvss: { column: 'cvss', schema: Type.Array(CvssSchema, { maxItems: 8 }), create: 'optional', update: true, json: true },
  cves: { column: 'cves', schema: Type.Array(Cve, { maxItems: 1000, uniqueItems: true }), create: 'optional', update: true },
  cwes: { column: 'cwes', schema: Type.Array(Type.Integer({ minimum: 1, maximum: 100_000 }), { maxItems: 100, uniqueItems: true }), create: 'optional', update: true },
  description: { column: 'description', schema: Type.String({ maxLength: 1_000_000 }), create: 'optional', update: true },
  impact: { column: 'impact', schema: Type.String({ maxLength: 1_000_000 }), create: 'optional', update: true },
  remediation: { column: 'remediation', schema: Type.String({ maxLength: 1_000_000 }), create: 'optional', update: true },
  references: { column: 'references', schema: Type.Array(Type.String({ maxLength: 4000 }), { maxItems: 500 }), create: 'optional', update: true },
};
