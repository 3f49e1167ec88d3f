import type { CompleteFinding, CompleteOccurrence } from '@service/scanners';

/** One affected asset as findings store it (see AffectedAssetSchema). */
export interface AffectedAsset {
  host?: string;
  ip?: string;
  port?: number | null;
  protocol?: string;
  service?: string;
  url?: string;
  parameter?: string;
  evidence?: string;
}

const MAX_EVIDENCE = 200_000;

function section(label: string, value: string | undefined): string | null {
  return value && value.trim() ? `${label}:\n${value.trimEnd()}` : null;
}

/** The evidence of one occurrence as readable text: output, HTTP exchange, extracted values, reproduction. */
export function evidenceText(o: CompleteOccurrence): string {
  const e = o.evidence ?? {};
  const parts = [
    o.detail ? o.detail.trimEnd() : null,
    o.compliance ? `Compliance result: ${o.compliance.result}${o.compliance.actualValue ? `\nActual value: ${o.compliance.actualValue}` : ''}${o.compliance.policyValue ? `\nPolicy value: ${o.compliance.policyValue}` : ''}` : null,
    section('Output', e.output),
    section('Request', e.request),
    section('Response', e.response),
    ...(e.additionalExchanges ?? []).flatMap((x, i) => [section(`Request ${i + 2}`, x.request), section(`Response ${i + 2}`, x.response)]),
    ...(e.interactions ?? []).map((x) => `Interaction: ${x.type}${x.originIp ? ` from ${x.originIp}` : ''}${x.lookupHost ? ` (${x.lookupHost})` : ''}${x.time ? ` at ${x.time}` : ''}`),
    e.extracted && e.extracted.length ? `Extracted:\n${e.extracted.join('\n')}` : null,
    section('Reproduce with', e.curl),
  ].filter((p): p is string => p !== null);
  const text = parts.join('\n\n');
  return text.length > MAX_EVIDENCE ? `${text.slice(0, MAX_EVIDENCE)}\n[evidence truncated]` : text;
}

export function toAffectedAsset(o: CompleteOccurrence): AffectedAsset {
  const a: AffectedAsset = { host: o.asset.id };
  if (o.asset.ip && o.asset.ip !== o.asset.id) a.ip = o.asset.ip;
  if (o.port !== undefined) a.port = o.port;
  if (o.protocol) a.protocol = o.protocol;
  if (o.service) a.service = o.service;
  if (o.url) a.url = o.url;
  if (o.parameter) a.parameter = o.parameter;
  const evidence = evidenceText(o);
  if (evidence) a.evidence = evidence;
  return a;
}

/** Identity of an affected asset: the same host, port, protocol, URL and parameter is the same place. */
export function assetKey(a: AffectedAsset): string {
  return JSON.stringify([a.host ?? '', a.port ?? null, (a.protocol ?? '').toLowerCase(), a.url ?? '', a.parameter ?? '']);
}

/**
 * The assets of a finding's occurrences, one per place: occurrences at the same place (Nessus
 * reports a plugin twice on one port with different output) keep all their evidence.
 */
export function assetsOf(finding: CompleteFinding): AffectedAsset[] {
  const byKey = new Map<string, AffectedAsset>();
  for (const o of finding.occurrences) {
    const asset = toAffectedAsset(o);
    const key = assetKey(asset);
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, asset);
    else if (asset.evidence && asset.evidence !== seen.evidence) seen.evidence = seen.evidence ? `${seen.evidence}\n\n---\n\n${asset.evidence}` : asset.evidence;
  }
  return [...byKey.values()];
}

/**
 * Adds `incoming` to `existing`: new places are appended; at a known place, evidence that is not
 * there yet is appended. Nothing is removed. Returns the merged list and how many places were new.
 */
export function mergeAssets(existing: AffectedAsset[], incoming: AffectedAsset[]): { assets: AffectedAsset[]; added: number; changed: boolean } {
  const assets = existing.map((a) => ({ ...a }));
  const index = new Map(assets.map((a, i) => [assetKey(a), i]));
  let added = 0;
  let changed = false;
  for (const a of incoming) {
    const at = index.get(assetKey(a));
    if (at === undefined) {
      index.set(assetKey(a), assets.length);
      assets.push(a);
      added += 1;
      changed = true;
      continue;
    }
    const current = assets[at]!;
    if (a.evidence && !(current.evidence ?? '').includes(a.evidence)) {
      current.evidence = current.evidence ? `${current.evidence}\n\n---\n\n${a.evidence}` : a.evidence;
      changed = true;
    }
  }
  return { assets, added, changed };
}
