import { composeExcerpt, cutLine, EXCERPT_CHARS, type EvidencePart } from '@service/report-model';
import { decodeHtmlEntities } from './html-to-text.ts';
import type { CompleteOccurrence } from './normalized-finding.ts';

/** What of the finding the excerpt of an occurrence needs. */
export interface ExcerptFinding {
  title: string;
  source: { scanner: string };
  matcherName?: string;
}

/** Text of the elements Burp emphasises in an issue detail: `<b>`, `<strong>` and list items. */
const EMPHASIS = /<(b|strong|li)\b[^>]*>([\s\S]*?)<\/\1\s*>/gi;
const MAX_MARKS = 40;

/**
 * What Burp marked in an issue. Burp's XML export carries no highlight ranges (its DTD has no
 * element for them, and none of the real exports we hold has any); the issue detail names in bold
 * and in lists what Burp highlighted in the messages: the payload, the echoed value, the cookie,
 * the header, the disclosed address. Those strings find the lines that matter.
 */
export function burpMarks(detailHtml: string | undefined): string[] {
  if (!detailHtml) return [];
  const marks: string[] = [];
  for (const m of detailHtml.matchAll(EMPHASIS)) {
    const text = decodeHtmlEntities(m[2]!.replace(/<[^>]*>/g, ''))
      .replace(/\s+/g, ' ')
      .trim();
    if (text !== '' && !text.endsWith(':')) marks.push(text);
    if (marks.length >= MAX_MARKS) break;
  }
  // Why the encoded forms too: a payload Burp names decoded is URL-encoded in the request line.
  return [...new Set(marks.flatMap((m) => [m, encodeURIComponent(m), m.replaceAll(' ', '+')]))];
}

/**
 * The parts of an occurrence's evidence, in the order `evidenceText` writes them, with what the
 * scanner states about the match first for Nuclei (where it matched, by which matcher).
 */
function partsOf(o: CompleteOccurrence, finding: ExcerptFinding): EvidencePart[] {
  const e = o.evidence ?? {};
  const parts: EvidencePart[] = [];
  const note = (text: string | undefined) => {
    if (text && text.trim() !== '') parts.push({ kind: 'note', text });
  };
  if (finding.source.scanner === 'nuclei' && o.url)
    note(cutLine(`Matched at ${o.url}`, -1, 200) + (finding.matcherName ? ` (matcher: ${finding.matcherName})` : ''));
  note(o.detail);
  if (o.compliance) {
    const c = o.compliance;
    note(
      [
        c.checkName ? `Check: ${c.checkName}` : null,
        `Compliance result: ${c.result}`,
        c.policyValue ? `Policy value: ${c.policyValue}` : null,
        c.actualValue ? `Actual value: ${c.actualValue}` : null,
      ]
        .filter((l): l is string => l !== null)
        .join('\n'),
    );
  }
  if (e.extracted && e.extracted.length > 0) note(`Extracted:\n${e.extracted.slice(0, 10).join('\n')}`);
  if (e.output) parts.push({ kind: 'output', text: e.output });
  const exchanges = [{ request: e.request, response: e.response }, ...(e.additionalExchanges ?? [])];
  for (const x of exchanges) {
    if (x.request) parts.push({ kind: 'request', text: x.request });
    if (x.response) parts.push({ kind: 'response', text: x.response });
  }
  for (const x of (e.interactions ?? []).slice(0, 3))
    note(
      `Interaction: ${x.type}${x.originIp ? ` from ${x.originIp}` : ''}` +
        `${x.lookupHost ? ` (${x.lookupHost})` : ''}${x.time ? ` at ${x.time}` : ''}`,
    );
  return parts;
}

/**
 * The excerpt of one occurrence: what a client needs to see of its evidence (report-model's
 * excerpt rules), with what the scanner marked: Burp's emphasised strings, Nuclei's extracted
 * results and matcher name, and the parameter. Undefined when the evidence is short enough to be
 * shown whole (`evidenceLength` at most EXCERPT_CHARS) or empty.
 */
export function occurrenceExcerpt(
  o: CompleteOccurrence,
  finding: ExcerptFinding,
  evidenceLength: number,
): string | undefined {
  if (evidenceLength <= EXCERPT_CHARS) return undefined;
  const marks = [
    ...burpMarks(o.detailHtml),
    ...(o.evidence?.extracted ?? []),
    ...(finding.matcherName ? [finding.matcherName] : []),
  ];
  const excerpt = composeExcerpt(partsOf(o, finding), {
    title: finding.title,
    marks,
    ...(o.parameter ? { parameter: o.parameter } : {}),
  });
  return excerpt.trim() === '' ? undefined : excerpt;
}
