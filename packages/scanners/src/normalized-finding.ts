import { Type } from 'typebox';
import { CvssSchema, SeveritySchema } from '@service/report-model';
import { LIMITS } from './limits.ts';

/**
 * The normalized finding (SCANNERS.md section 1). The same schema validates findings produced by
 * the parsers and JSON bodies of already-parsed findings written by people or other tools, so only
 * what cannot be defaulted is required: source.scanner, ruleId, title and severity.
 * `normalizeFindingInput` fills the defaults.
 */

const text = (maxLength: number) => Type.String({ maxLength });
const evidenceText = () => Type.String({ maxLength: LIMITS.evidenceChars });

/** Burp's confidence levels; the other scanners state none. */
export const ConfidenceSchema = Type.Union([Type.Literal('Certain'), Type.Literal('Firm'), Type.Literal('Tentative')]);

export const AssetSchema = Type.Object(
  {
    /** stable key of the asset: Nessus ReportHost@name, Burp origin URL, Nmap address, Nuclei matched-at */
    id: Type.String({ maxLength: LIMITS.assetIdChars }),
    ip: Type.Optional(text(64)),
    hostname: Type.Optional(text(255)),
    fqdn: Type.Optional(text(255)),
    mac: Type.Optional(text(64)),
    os: Type.Optional(text(500)),
  },
  { additionalProperties: false },
);

export const HttpExchangeSchema = Type.Object(
  {
    method: Type.Optional(text(32)),
    request: Type.Optional(evidenceText()),
    response: Type.Optional(evidenceText()),
  },
  { additionalProperties: false },
);

/** An out-of-band interaction: Burp Collaborator event or Nuclei OAST interaction. */
export const InteractionSchema = Type.Object(
  {
    type: text(50),
    originIp: Type.Optional(text(64)),
    time: Type.Optional(text(64)),
    lookupType: Type.Optional(text(32)),
    lookupHost: Type.Optional(text(500)),
    request: Type.Optional(evidenceText()),
    response: Type.Optional(evidenceText()),
  },
  { additionalProperties: false },
);

export const EvidenceSchema = Type.Object(
  {
    /** plugin output, script output, matched lines */
    output: Type.Optional(evidenceText()),
    method: Type.Optional(text(32)),
    request: Type.Optional(evidenceText()),
    response: Type.Optional(evidenceText()),
    /** Burp issues can carry several request/response pairs; the first is request/response above */
    additionalExchanges: Type.Optional(Type.Array(HttpExchangeSchema, { maxItems: LIMITS.exchanges })),
    interactions: Type.Optional(Type.Array(InteractionSchema, { maxItems: LIMITS.interactions })),
    extracted: Type.Optional(Type.Array(evidenceText(), { maxItems: LIMITS.extractedValues })),
    curl: Type.Optional(evidenceText()),
  },
  { additionalProperties: false },
);

export const ComplianceSchema = Type.Object(
  {
    /** PASSED / WARNING / FAILED / ERROR as Nessus writes it */
    result: text(50),
    checkId: Type.Optional(text(500)),
    /** the check's title (`cm:compliance-check-name`); the finding's title names the audit */
    checkName: Type.Optional(text(LIMITS.titleChars)),
    /** the expected value: what the audit policy requires */
    policyValue: Type.Optional(evidenceText()),
    actualValue: Type.Optional(evidenceText()),
    /** why the check matters (`cm:compliance-info`) */
    info: Type.Optional(text(LIMITS.textChars)),
    solution: Type.Optional(text(LIMITS.textChars)),
    /** the frameworks the check maps to (`cm:compliance-reference`, such as `800-53|SI-2,CSCv7|2.2`) */
    reference: Type.Optional(text(LIMITS.textChars)),
    seeAlso: Type.Optional(Type.Array(text(LIMITS.referenceChars), { maxItems: 100 })),
    auditFile: Type.Optional(text(500)),
  },
  { additionalProperties: false },
);

export const OccurrenceSchema = Type.Object(
  {
    asset: AssetSchema,
    /** absent for host-level results (Nessus port 0) */
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535 })),
    protocol: Type.Optional(text(20)),
    service: Type.Optional(text(100)),
    url: Type.Optional(text(LIMITS.urlChars)),
    path: Type.Optional(text(LIMITS.urlChars)),
    parameter: Type.Optional(text(1_000)),
    /** defaults to the finding's severity */
    severity: Type.Optional(SeveritySchema),
    confidence: Type.Optional(ConfidenceSchema),
    /** instance-specific explanation (Burp issueDetail), plain text */
    detail: Type.Optional(text(LIMITS.textChars)),
    detailHtml: Type.Optional(text(LIMITS.textChars)),
    compliance: Type.Optional(ComplianceSchema),
    evidence: Type.Optional(EvidenceSchema),
    /** ISO 8601 */
    firstSeen: Type.Optional(text(64)),
  },
  { additionalProperties: false },
);

export const NormalizedFindingSchema = Type.Object(
  {
    source: Type.Object(
      {
        /** nessus / burp / nmap / nuclei for parsed files; other tools may name themselves */
        scanner: Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
        version: Type.Optional(text(100)),
      },
      { additionalProperties: false },
    ),
    ruleId: Type.String({ minLength: 1, maxLength: LIMITS.keyChars }),
    /** defaults to ruleId */
    groupKey: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.keyChars })),
    title: Type.String({ minLength: 1, maxLength: LIMITS.titleChars }),
    severity: SeveritySchema,
    /** the scanner's own value (Nessus 0-4, Burp High/Information, ...); defaults to severity */
    severityRaw: Type.Optional(text(100)),
    confidence: Type.Optional(Type.Union([ConfidenceSchema, Type.Null()])),
    description: Type.Optional(text(LIMITS.textChars)),
    /** original HTML when description was converted from HTML (Burp) */
    descriptionHtml: Type.Optional(text(LIMITS.textChars)),
    /** one-line summary (Nessus synopsis) */
    summary: Type.Optional(text(LIMITS.textChars)),
    impact: Type.Optional(Type.Union([text(LIMITS.textChars), Type.Null()])),
    remediation: Type.Optional(Type.Union([text(LIMITS.textChars), Type.Null()])),
    remediationHtml: Type.Optional(text(LIMITS.textChars)),
    references: Type.Optional(Type.Array(text(LIMITS.referenceChars), { maxItems: LIMITS.references })),
    cves: Type.Optional(
      Type.Array(Type.String({ pattern: '^[Cc][Vv][Ee]-[0-9]{4}-[0-9]{4,}$', maxLength: 32 }), {
        maxItems: LIMITS.cves,
      }),
    ),
    cwes: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 1_000_000 }), { maxItems: LIMITS.cwes })),
    cvss: Type.Optional(Type.Array(CvssSchema, { maxItems: LIMITS.cvssEntries })),
    epssScore: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    /** Nessus plugin family */
    pluginFamily: Type.Optional(text(200)),
    /**
     * The products the check is about, as CPE names: Nessus `cpe`, the Nmap service or vulners
     * CPE, Nuclei `classification.cpe`
     */
    cpes: Type.Optional(Type.Array(text(300), { maxItems: LIMITS.cpes })),
    /** Nuclei template tags, lower case */
    tags: Type.Optional(Type.Array(text(100), { maxItems: LIMITS.tags })),
    /**
     * Nuclei protocol type (http, dns, ssl, ...); Nmap `open-port`, `nse-script` or the vulners
     * entry type (cve, exploit, ...); Nessus `compliance` for a grouped compliance audit
     */
    checkType: Type.Optional(text(100)),
    /**
     * Nuclei matcher-name (which header is missing, which technology, ...); for Nmap script
     * findings the condition the script output showed (`expired`, `weak-ciphers`, ...)
     */
    matcherName: Type.Optional(text(500)),
    occurrences: Type.Optional(Type.Array(OccurrenceSchema, { maxItems: LIMITS.occurrences })),
  },
  { additionalProperties: false },
);

export type NormalizedFinding = Type.Static<typeof NormalizedFindingSchema>;
export type Occurrence = Type.Static<typeof OccurrenceSchema>;
export type Asset = Type.Static<typeof AssetSchema>;
export type Evidence = Type.Static<typeof EvidenceSchema>;
export type Confidence = Type.Static<typeof ConfidenceSchema>;
export type HttpExchange = Type.Static<typeof HttpExchangeSchema>;
export type Interaction = Type.Static<typeof InteractionSchema>;
export type Compliance = Type.Static<typeof ComplianceSchema>;

/** An occurrence with its defaults applied. */
export type CompleteOccurrence = Occurrence & { severity: NonNullable<Occurrence['severity']> };

type DefaultedKeys =
  | 'groupKey'
  | 'severityRaw'
  | 'confidence'
  | 'description'
  | 'impact'
  | 'remediation'
  | 'references'
  | 'cves'
  | 'cwes'
  | 'cvss';

/** A finding with every default applied: what the parsers return and `normalizeFindingInput` produces. */
export type CompleteFinding = Omit<NormalizedFinding, DefaultedKeys | 'occurrences'> &
  Required<Pick<NormalizedFinding, DefaultedKeys>> & { occurrences: CompleteOccurrence[] };
