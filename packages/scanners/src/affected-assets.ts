import { affectedAssetKey, appendEvidence, appendExcerpt, type AffectedAsset } from '@service/report-model';
import { occurrenceExcerpt, type ExcerptFinding } from './evidence-excerpt.ts';
import type { CompleteFinding, CompleteOccurrence, Compliance } from './normalized-finding.ts';

const MAX_EVIDENCE = 200_000;

function section(label: string, value: string | undefined): string | null {
  return value?.trim() ? `${label}:\n${value.trimEnd()}` : null;
}

/** One compliance check as text: until a report renders the checks as a table, each is a block of lines. */
function complianceText(c: Compliance): string {
  return [
    c.checkName
      ? `Check: ${c.checkId && !/^[0-9a-f]{32,}$/.test(c.checkId) ? `${c.checkId} ` : ''}${c.checkName}`
      : null,
    `Compliance result: ${c.result}`,
    c.policyValue ? `Policy value: ${c.policyValue}` : null,
    c.actualValue ? `Actual value: ${c.actualValue}` : null,
    c.solution ? `Solution: ${c.solution}` : null,
  ]
    .filter((line): line is string => line !== null)
    .join('\n');
}

/** The evidence of one occurrence as readable text: output, HTTP exchange, extracted values, reproduction. */
export function evidenceText(o: CompleteOccurrence): string {
  const e = o.evidence ?? {};
  const parts = [
    o.detail ? o.detail.trimEnd() : null,
    o.compliance ? complianceText(o.compliance) : null,
    section('Output', e.output),
    section('Request', e.request),
    section('Response', e.response),
    ...(e.additionalExchanges ?? []).flatMap((x, i) => [
      section(`Request ${i + 2}`, x.request),
      section(`Response ${i + 2}`, x.response),
    ]),
    ...(e.interactions ?? []).map(
      (x) =>
        `Interaction: ` +
        `${x.type}${x.originIp ? ` from ${x.originIp}` : ''}${x.lookupHost ? ` (${x.lookupHost})` : ''}${x.time ? ` at ${x.time}` : ''}`,
    ),
    e.extracted?.length ? `Extracted:\n${e.extracted.join('\n')}` : null,
    section('Reproduce with', e.curl),
  ].filter((p): p is string => p !== null);
  const text = parts.join('\n\n');
  return text.length > MAX_EVIDENCE ? `${text.slice(0, MAX_EVIDENCE)}\n[evidence truncated]` : text;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The host name or address in an asset id: the id itself for Nessus and Nmap hosts, the host of a
 * URL (Burp origins, Nuclei matched-at, Tenable WAS), and `host:port` or `[v6]:port` without the port.
 */
export function hostOfAssetId(id: string): string {
  if (SCHEME.test(id)) {
    try {
      const host = new URL(id).hostname;
      if (host !== '') return host.replace(/^\[(.*)\]$/, '$1');
    } catch {
      // Why: not a parseable URL after all; fall through and treat it as a plain name.
    }
  }
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(id);
  if (bracketed) return bracketed[1]!;
  const hostPort = /^([^:/\s]+):\d{1,5}$/.exec(id);
  if (hostPort) return hostPort[1]!;
  return id;
}

/**
 * One occurrence as an affected asset of the report model (SCANNERS.md section 1): `host` is the
 * host name or address only, `url` the location on it. Every format goes through here, so a
 * report's host list groups the same whatever scanner found it. With its `finding`, an evidence
 * too long to be shown whole in a client document gets its `excerpt` (evidence-excerpt.ts).
 */
export function toAffectedAsset(o: CompleteOccurrence, finding?: ExcerptFinding): AffectedAsset {
  const idIsUrl = SCHEME.test(o.asset.id);
  const host = o.asset.id === '' ? (o.asset.hostname ?? o.asset.ip ?? '') : hostOfAssetId(o.asset.id);
  const a: AffectedAsset = {};
  if (host !== '') a.host = host;
  if (o.asset.ip && o.asset.ip !== host) a.ip = o.asset.ip;
  if (o.port !== undefined) a.port = o.port;
  if (o.protocol) a.protocol = o.protocol;
  if (o.service) a.service = o.service;
  const url = o.url ?? (idIsUrl ? o.asset.id : undefined);
  if (url) a.url = url;
  if (o.parameter) a.parameter = o.parameter;
  const evidence = evidenceText(o);
  if (evidence) {
    a.evidence = evidence;
    const excerpt = finding ? occurrenceExcerpt(o, finding, evidence.length) : undefined;
    if (excerpt !== undefined) a.excerpt = excerpt;
  }
  return a;
}

/**
 * The affected assets of a finding's occurrences, one per place: occurrences at the same place
 * (Nessus reports a plugin twice on one port with different output) keep all their evidence.
 */
export function affectedAssetsOf(finding: CompleteFinding): AffectedAsset[] {
  const byKey = new Map<string, AffectedAsset>();
  for (const o of finding.occurrences) {
    const asset = toAffectedAsset(o, finding);
    const key = affectedAssetKey(asset);
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, asset);
    else if (asset.evidence && asset.evidence !== seen.evidence) {
      const before = seen.evidence;
      seen.evidence = appendEvidence(seen.evidence, asset.evidence);
      const excerpt = appendExcerpt(seen, before, asset);
      if (excerpt !== undefined) seen.excerpt = excerpt;
    }
  }
  return [...byKey.values()];
}
