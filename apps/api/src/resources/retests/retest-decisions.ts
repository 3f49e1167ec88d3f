import {
  appendEvidence,
  retestAssetKey,
  retestAssetOf,
  retestStatusOfAssets,
  type AffectedAsset,
  type AssetRetestStatus,
  type RetestAsset,
  type RetestStatus,
  type RetestStatusSource,
} from '@service/report-model';
import { affectedAssetsOf, type CompleteFinding, type ScanCoverage } from '@service/scanners';

/**
 * What a re-scan decides for the findings of a retest, as pure functions (no database): an asset
 * where a finding's rule is still reported becomes `unresolved` (with the re-scan's evidence), an
 * asset the scan covered where it is no longer reported becomes `resolved`, assets the scan did
 * not cover keep their status, and places where the rule is reported that the finding did not
 * have are added as `new`. The finding's status follows from its assets unless a person set it.
 */

/** Where a finding's rules are reported in a scan: place -> the re-scan's evidence and the rules. */
export type ReportedPlaces = Map<string, { asset: AffectedAsset; evidence: string; rules: string[] }>;

/** The scan's results by scanner key (`<scanner>:<group key>`, as findings remember them). */
export function resultsByKey(
  results: readonly CompleteFinding[],
  keyOf: (f: CompleteFinding) => string,
): Map<string, CompleteFinding[]> {
  const out = new Map<string, CompleteFinding[]>();
  for (const r of results) {
    const key = keyOf(r);
    const list = out.get(key);
    if (list) list.push(r);
    else out.set(key, [r]);
  }
  return out;
}

/** The places where any of a finding's rules is reported, with the evidence of each. */
export function reportedPlaces(keys: readonly string[], byKey: Map<string, CompleteFinding[]>): ReportedPlaces {
  const places: ReportedPlaces = new Map();
  for (const key of keys)
    for (const result of byKey.get(key) ?? [])
      for (const asset of affectedAssetsOf(result)) {
        const place = retestAssetKey(asset);
        const rule = `${result.source.scanner.toLowerCase()}:${result.ruleId}`;
        const seen = places.get(place);
        if (!seen) places.set(place, { asset, evidence: asset.evidence ?? '', rules: [rule] });
        else {
          if (asset.evidence && !seen.evidence.includes(asset.evidence))
            seen.evidence = appendEvidence(seen.evidence || undefined, asset.evidence);
          if (!seen.rules.includes(rule)) seen.rules.push(rule);
        }
      }
  return places;
}

/** The scanners a finding's rules come from (`nessus` of `nessus:57608`). */
export function scannersOfKeys(keys: readonly string[]): string[] {
  return [...new Set(keys.map((k) => k.slice(0, k.indexOf(':')).toLowerCase()).filter((s) => s !== ''))];
}

export type AssetDecisionReason = 'still_reported' | 'no_longer_reported' | 'first_seen';

/** One asset the re-scan decided that changed: its place, its status before and after, and why. */
export interface AssetDecision {
  host?: string;
  ip?: string;
  port?: number | null;
  protocol?: string;
  url?: string;
  parameter?: string;
  before: AssetRetestStatus | null;
  after: AssetRetestStatus;
  reason: AssetDecisionReason;
  /** The rules that are reported here (for `still_reported` and `first_seen`). */
  rules: string[];
}

export interface FindingUnderRetest {
  status: RetestStatus;
  statusSetBy: RetestStatusSource;
  assets: readonly RetestAsset[];
}

export interface FindingDecision {
  /** The result after the re-scan. */
  status: RetestStatus;
  assets: RetestAsset[];
  /** Whether anything of the result changed (a status or the evidence of an asset). */
  changed: boolean;
  /** The assets whose status or evidence changed, with the reason. */
  decisions: AssetDecision[];
  /** Assets the scan did not cover (they keep their status). */
  notCovered: number;
}

function place(a: RetestAsset | AffectedAsset): Omit<AssetDecision, 'before' | 'after' | 'reason' | 'rules'> {
  const { host, ip, port, protocol, url, parameter } = a;
  return Object.fromEntries(
    Object.entries({ host, ip, port, protocol, url, parameter }).filter(([, v]) => v !== undefined),
  ) as Omit<AssetDecision, 'before' | 'after' | 'reason' | 'rules'>;
}

/**
 * The re-scan's decision for one finding whose rules come from `scanners` (only scanners of the
 * scan count). Returns null when the scan says nothing about it (none of its scanners ran).
 */
export function decideFinding(
  result: FindingUnderRetest,
  reported: ReportedPlaces,
  coverage: ScanCoverage,
  scanners: readonly string[],
): FindingDecision | null {
  const relevant = scanners.filter((s) => coverage.scanners.has(s));
  if (relevant.length === 0) return null;
  const covered = (a: RetestAsset) => relevant.some((s) => coverage.covers(a, s));
  const decisions: AssetDecision[] = [];
  let notCovered = 0;
  const known = new Set<string>();
  const assets = result.assets.map((a): RetestAsset => {
    const key = retestAssetKey(a);
    known.add(key);
    const found = reported.get(key);
    let next: RetestAsset;
    let reason: AssetDecisionReason;
    if (found) {
      // Why `new` stays: an asset first seen in this retest is still "new" when seen again.
      next = { ...a, status: a.status === 'new' ? 'new' : 'unresolved', evidence: found.evidence };
      reason = 'still_reported';
    } else if (covered(a)) {
      next = { ...a, status: 'resolved', evidence: '' };
      reason = 'no_longer_reported';
    } else {
      notCovered += 1;
      return a;
    }
    if (next.status !== a.status || next.evidence !== a.evidence)
      decisions.push({ ...place(a), before: a.status, after: next.status, reason, rules: found?.rules ?? [] });
    return next;
  });
  for (const [key, found] of reported) {
    if (known.has(key)) continue;
    known.add(key);
    assets.push(retestAssetOf(found.asset, 'new', found.evidence));
    decisions.push({ ...place(found.asset), before: null, after: 'new', reason: 'first_seen', rules: found.rules });
  }
  const status = result.statusSetBy === 'person' ? result.status : retestStatusOfAssets(assets, result.status);
  return { status, assets, changed: decisions.length > 0 || status !== result.status, decisions, notCovered };
}

/** One sentence saying why a finding's retest status is what the re-scan made it. */
export function explainDecision(
  before: RetestStatus,
  decision: FindingDecision,
  statusSetBy: RetestStatusSource,
): string {
  const count = (status: AssetRetestStatus) => decision.assets.filter((a) => a.status === status).length;
  const total = decision.assets.length;
  const parts: string[] = [];
  const resolved = count('resolved');
  const open = count('unresolved') + count('new');
  const untested = count('not_retested');
  if (resolved > 0) parts.push(`${resolved} of ${total} asset${total === 1 ? '' : 's'} no longer reported`);
  if (open > 0) parts.push(`${open} still reported`);
  if (untested > 0) parts.push(`${untested} not covered by any re-scan yet`);
  const assets = parts.length > 0 ? `${parts.join(', ')}.` : 'No affected assets.';
  if (statusSetBy === 'person') return `${assets} The status ${decision.status} was set by a person and is kept.`;
  if (!decision.changed) return `${assets} Nothing changed.`;
  return before === decision.status ? assets : `${assets} Status ${before} -> ${decision.status}.`;
}
