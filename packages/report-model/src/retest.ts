import { Type, type Static } from 'typebox';
import { affectedAssetKey, AffectedAssetSchema, type AffectedAsset } from './affected-asset.ts';
import { EvidenceRefSchema } from './report.ts';
import { IsoDate, MarkdownText, TEXT_LIMITS, Title, Uuid } from './text.ts';

/**
 * Retests: a second (third, ...) round of a report that says, finding by finding and asset by
 * asset, what is fixed. A retest is a report of its own (`kind: retest`) in the same project;
 * each of its findings carries a retest result. The result belongs to the pair (retest report,
 * finding), not to the finding: the same finding has one result per round. That is why it is a
 * shape of its own here and not a finding field (FINDING_FIELDS are a finding's own content).
 */

/** A report is an original report or a retest of one. */
export const REPORT_KINDS = ['report', 'retest'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const ReportKindSchema = Type.Enum([...REPORT_KINDS], {
  description: '`report`, or `retest` (made with `POST /reports/{id}/retests`).',
});

/** A finding's result in a retest. `new`: first seen in the retest. */
export const RETEST_STATUSES = ['not_retested', 'resolved', 'partially_resolved', 'unresolved', 'new'] as const;
export type RetestStatus = (typeof RETEST_STATUSES)[number];
export const RetestStatusSchema = Type.Enum([...RETEST_STATUSES], {
  description:
    '`not_retested` (nothing checked yet), `resolved` (fixed on every affected asset), `partially_resolved` ' +
    '(fixed on some assets, or only some were retested), `unresolved` (still there), `new` (first seen in the retest).',
});

/** One affected asset's result: `new` is an asset where the finding was first seen in the retest. */
export const ASSET_RETEST_STATUSES = ['not_retested', 'resolved', 'unresolved', 'new'] as const;
export type AssetRetestStatus = (typeof ASSET_RETEST_STATUSES)[number];
export const AssetRetestStatusSchema = Type.Enum([...ASSET_RETEST_STATUSES], {
  description:
    '`not_retested` (not covered yet), `resolved` (covered and no longer reported), `unresolved` (still reported), ' +
    '`new` (the finding was first seen on this asset in the retest).',
});

/** Who decided a finding's retest status: it follows from its assets, or a person set it (and it is kept). */
export const RETEST_STATUS_SOURCES = ['assets', 'person'] as const;
export type RetestStatusSource = (typeof RETEST_STATUS_SOURCES)[number];
export const RetestStatusSourceSchema = Type.Enum([...RETEST_STATUS_SOURCES], {
  description:
    '`assets`: the status follows from the assets and every re-scan import updates it; `person`: a person set ' +
    'it, and imports keep it.',
});

const AssetProperties = AffectedAssetSchema.properties;

/**
 * One affected asset in a retest: the place (as the finding's affected asset names it), its
 * status, and the evidence the retest gave (scanner output of a re-scan; empty when none).
 */
export const RetestAssetSchema = Type.Object(
  {
    host: AssetProperties.host,
    ip: AssetProperties.ip,
    port: AssetProperties.port,
    protocol: AssetProperties.protocol,
    url: AssetProperties.url,
    parameter: AssetProperties.parameter,
    status: AssetRetestStatusSchema,
    evidence: Type.String({
      maxLength: TEXT_LIMITS.assetEvidence,
      description: 'What the retest saw on this asset (re-scan output); empty when nothing was recorded.',
    }),
  },
  { additionalProperties: false },
);
export type RetestAsset = Static<typeof RetestAssetSchema>;

export const RetestAssetListSchema = Type.Array(RetestAssetSchema, { maxItems: TEXT_LIMITS.assets });

/** What a person can set on a finding's retest result, and what documents show of it. */
export const RetestResultProperties = {
  status: RetestStatusSchema,
  statusSetBy: RetestStatusSourceSchema,
  statusNote: Type.String({
    maxLength: 10_000,
    description: 'Why a person set the status (shown with it); empty when the status follows from the assets.',
  }),
  notes: MarkdownText(TEXT_LIMITS.markdown, 'Retest notes (Markdown): what was retested and how.'),
  retestedAt: Type.Union([IsoDate, Type.Null()], {
    description: 'The day of the last retest decision; null while nothing was retested.',
  }),
  riskAccepted: Type.Boolean({
    description: 'The client accepted the remaining risk (their decision; separate from the retest status).',
  }),
  riskAcceptedNote: Type.String({ maxLength: 10_000, description: 'Who accepted the risk, when and why.' }),
  assets: RetestAssetListSchema,
};

/** A finding's retest result as a document holds it: the result plus its retest evidence images. */
export const RetestResultSchema = Type.Object(
  { ...RetestResultProperties, evidence: Type.Array(EvidenceRefSchema, { maxItems: 1000 }) },
  { additionalProperties: false },
);
export type RetestResult = Static<typeof RetestResultSchema>;

/** Another report a retest names: by id when read from a workspace, always by title. */
export const ReportRefSchema = Type.Object(
  {
    id: Type.Optional(Uuid),
    title: Title(),
    date: Type.Optional(
      Type.Union([IsoDate, Type.Null()], {
        description: "The report's date (its newest version's), as documents show it; files do not carry it.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ReportRef = Static<typeof ReportRefSchema>;

/** What makes a report a retest: its round, the round before it, and the original report. */
export const RetestInfoSchema = Type.Object(
  {
    round: Type.Integer({ minimum: 1, maximum: 1000, description: 'Retest round: 1 for the first retest.' }),
    retestOf: Type.Union([ReportRefSchema, Type.Null()], {
      description: 'The round before (the original report for round 1); null when unknown (an imported file).',
    }),
    original: Type.Union([ReportRefSchema, Type.Null()], {
      description: 'The original report; null when unknown.',
    }),
  },
  { additionalProperties: false },
);
export type RetestInfo = Static<typeof RetestInfoSchema>;

/** A fresh result: nothing retested yet, every affected asset `not_retested` (or every one `new`). */
export function freshRetestResult(assets: readonly AffectedAsset[], status: 'not_retested' | 'new'): RetestResult {
  return {
    status,
    statusSetBy: 'assets',
    statusNote: '',
    notes: '',
    retestedAt: null,
    riskAccepted: false,
    riskAcceptedNote: '',
    assets: uniqueRetestAssets(assets.map((a) => retestAssetOf(a, status, ''))),
    evidence: [],
  };
}

/** The place of an affected asset as a retest asset, with a status and the retest's evidence. */
export function retestAssetOf(a: AffectedAsset, status: AssetRetestStatus, evidence: string): RetestAsset {
  const out: RetestAsset = { status, evidence };
  if (a.host !== undefined) out.host = a.host;
  if (a.ip !== undefined) out.ip = a.ip;
  if (a.port !== undefined) out.port = a.port;
  if (a.protocol !== undefined) out.protocol = a.protocol;
  if (a.url !== undefined) out.url = a.url;
  if (a.parameter !== undefined) out.parameter = a.parameter;
  return Object.fromEntries(RETEST_ASSET_KEYS.filter((k) => k in out).map((k) => [k, out[k]])) as RetestAsset;
}

/** The keys of a retest asset, in the order every format writes them. */
export const RETEST_ASSET_KEYS = ['host', 'ip', 'port', 'protocol', 'url', 'parameter', 'status', 'evidence'] as const;

/** The identity of a retest asset's place: the same as that of the affected asset it stands for. */
export function retestAssetKey(a: RetestAsset | AffectedAsset): string {
  return affectedAssetKey(a);
}

function uniqueRetestAssets(assets: RetestAsset[]): RetestAsset[] {
  const seen = new Set<string>();
  return assets.filter((a) => {
    const key = retestAssetKey(a);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The status a finding's assets give it: none retested -> `not_retested`; all first seen in the
 * retest -> `new`; all resolved -> `resolved`; still reported somewhere and resolved nowhere ->
 * `unresolved`; otherwise (resolved on some assets, still there or not retested on others) ->
 * `partially_resolved`. A finding without assets keeps `current` (nothing to derive from).
 */
export function retestStatusOfAssets(assets: readonly RetestAsset[], current: RetestStatus): RetestStatus {
  if (assets.length === 0) return current;
  const count = { not_retested: 0, resolved: 0, unresolved: 0, new: 0 };
  for (const a of assets) count[a.status] += 1;
  if (count.new === assets.length) return 'new';
  if (count.not_retested === assets.length) return 'not_retested';
  if (count.resolved === assets.length) return 'resolved';
  if (count.resolved === 0) return 'unresolved';
  return 'partially_resolved';
}

/** Statuses that are still open for the client: the finding (or part of it) is there. */
export const OPEN_RETEST_STATUSES: readonly RetestStatus[] = ['partially_resolved', 'unresolved', 'new'];

/** How many findings have each retest status, in the order documents list them. */
export function countRetestStatuses(results: ReadonlyArray<{ status: RetestStatus }>): Record<RetestStatus, number> {
  const counts = Object.fromEntries(RETEST_STATUSES.map((s) => [s, 0])) as Record<RetestStatus, number>;
  for (const r of results) counts[r.status] += 1;
  return counts;
}
