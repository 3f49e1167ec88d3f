import { Type } from 'typebox';
import { capExcerpt, excerptOfEvidence } from './evidence-excerpt.ts';
import { TEXT_LIMITS } from './text.ts';

/**
 * One place a finding occurs. `host` is the host name or IP address only (never a URL), `url`
 * the location on it, so a report's host list and counts group correctly whatever the scanner
 * (SCANNERS.md section 1). Every parser fills these the same way.
 */
export const AffectedAssetSchema = Type.Object(
  {
    host: Type.Optional(
      Type.String({ maxLength: TEXT_LIMITS.host, description: 'Host name or IP address (not a URL).' }),
    ),
    ip: Type.Optional(Type.String({ maxLength: 100, description: 'The IP address, when `host` is a name.' })),
    port: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Null()])),
    protocol: Type.Optional(Type.String({ maxLength: 20, description: 'Transport protocol: tcp, udp, ...' })),
    service: Type.Optional(Type.String({ maxLength: 200, description: 'Service name: http, ssh, ...' })),
    url: Type.Optional(
      Type.String({ maxLength: TEXT_LIMITS.url, description: 'The location on the host: a URL for web findings.' }),
    ),
    parameter: Type.Optional(Type.String({ maxLength: 2000 })),
    evidence: Type.Optional(
      Type.String({
        maxLength: TEXT_LIMITS.assetEvidence,
        description: 'Scanner output, request/response or notes for this asset.',
      }),
    ),
    excerpt: Type.Optional(
      Type.String({
        maxLength: TEXT_LIMITS.assetExcerpt,
        description:
          'What client documents show of `evidence` (request line, the headers and lines that ' +
          'matter, the part the scanner marked). Computed on scan import when the evidence is longer ' +
          'than 1,500 characters; without it, documents derive one from `evidence` by the same rules.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AffectedAsset = Type.Static<typeof AffectedAssetSchema>;

export const AffectedAssetListSchema = Type.Array(AffectedAssetSchema, { maxItems: TEXT_LIMITS.assets });

/** Identity of an affected asset: the same host, port, protocol, URL and parameter is the same place. */
export function affectedAssetKey(a: AffectedAsset): string {
  return JSON.stringify([
    a.host ?? '',
    a.port ?? null,
    (a.protocol ?? '').toLowerCase(),
    a.url ?? '',
    a.parameter ?? '',
  ]);
}

/**
 * Adds `incoming` to `existing`: new places are appended; at a known place, evidence that is not
 * there yet is appended. Nothing is removed. Returns the merged list and how many places were new.
 */
export function mergeAffectedAssets(
  existing: readonly AffectedAsset[],
  incoming: readonly AffectedAsset[],
): { assets: AffectedAsset[]; added: number; changed: boolean } {
  const assets = existing.map((a) => ({ ...a }));
  const index = new Map(assets.map((a, i) => [affectedAssetKey(a), i]));
  let added = 0;
  let changed = false;
  for (const a of incoming) {
    const key = affectedAssetKey(a);
    const at = index.get(key);
    if (at === undefined) {
      // Why: a finding never holds more places than the model allows, so it can always be sent back.
      if (assets.length >= TEXT_LIMITS.assets) continue;
      index.set(key, assets.length);
      assets.push({ ...a });
      added += 1;
      changed = true;
      continue;
    }
    const current = assets[at]!;
    if (a.evidence && !(current.evidence ?? '').includes(a.evidence)) {
      const before = current.evidence;
      const evidence = appendEvidence(current.evidence, a.evidence);
      if (evidence !== current.evidence) {
        current.evidence = evidence;
        changed = true;
        const excerpt = appendExcerpt(current, before, a);
        if (excerpt === undefined) delete current.excerpt;
        else current.excerpt = excerpt;
      }
    }
  }
  return { assets, added, changed };
}

/**
 * The excerpt of an asset whose evidence `before` was just joined by `addition`'s: both excerpts
 * (an evidence short enough to be shown whole is its own) joined as the evidence was, within the
 * excerpt's cap. Undefined when neither had an excerpt (the documents then derive one from the
 * joined evidence).
 */
export function appendExcerpt(
  current: Pick<AffectedAsset, 'excerpt'>,
  before: string | undefined,
  addition: Pick<AffectedAsset, 'excerpt' | 'evidence'>,
): string | undefined {
  if (current.excerpt === undefined && addition.excerpt === undefined) return undefined;
  const first = current.excerpt ?? excerptOfEvidence(before);
  const second = addition.excerpt ?? excerptOfEvidence(addition.evidence) ?? '';
  const joined = first ? `${first}\n\n---\n\n${second}` : second;
  return capExcerpt(joined);
}

const TRUNCATED = '\n[further evidence not kept: this asset reached the evidence size limit]';

/**
 * Evidence of two occurrences at one place, separated by a rule, never longer than the model
 * allows (so what an import stores can always be sent back through the API).
 */
export function appendEvidence(current: string | undefined, addition: string): string {
  if (!current)
    return addition.length <= TEXT_LIMITS.assetEvidence
      ? addition
      : addition.slice(0, TEXT_LIMITS.assetEvidence - TRUNCATED.length) + TRUNCATED;
  if (current.endsWith(TRUNCATED)) return current;
  const joined = `${current}\n\n---\n\n${addition}`;
  return joined.length <= TEXT_LIMITS.assetEvidence
    ? joined
    : joined.slice(0, TEXT_LIMITS.assetEvidence - TRUNCATED.length) + TRUNCATED;
}
