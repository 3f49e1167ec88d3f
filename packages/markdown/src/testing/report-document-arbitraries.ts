import fc from 'fast-check';
import {
  CVSS_VERSIONS,
  EVIDENCE_CONTENT_TYPES,
  FINDING,
  FINDING_CONTENT,
  FINDING_ORDERS,
  FINDING_STATUSES,
  LINK,
  PROJECT_STATUSES,
  REPORT,
  REPORT_PROJECT,
  REPORT_STATUSES,
  SEVERITIES,
  TAB,
  TAB_PLACEMENTS,
  TEXT_LIMITS,
  type AffectedAsset,
  type Cvss,
  type EvidenceRef,
  type Finding,
  type FindingContent,
  type FindingFieldShape,
  type FindingSource,
  type LinkFields,
  type LinkFieldShape,
  type ProjectFieldShape,
  type ReportDocument,
  type ReportDocumentFinding,
  type ReportFields,
  type ReportFieldShape,
  type ReportProjectFields,
  type TabFields,
  type TabFieldShape,
  ASSET_RETEST_STATUSES,
  RETEST_STATUS_SOURCES,
  RETEST_STATUSES,
  type RetestAsset,
  type RetestInfo,
  type RetestResult,
} from '@service/report-model';

/**
 * fast-check arbitraries for every field of a ReportDocument, biased towards text that is hard
 * for the Markdown format: our own markers, fences of every length, front-matter delimiters,
 * headings, HTML comments, YAML-looking text, CR in every combination, RTL scripts, emoji,
 * combining marks, zero-width characters and, rarely, very long text.
 *
 * Text follows the documented rule of the model: any Unicode scalar value except U+0000 (the API
 * refuses it), so CR, other control characters and "␍" all occur. Lone surrogates do not (UTF-8
 * cannot carry them).
 */

const TRICKY_PIECES = [
  '---',
  '+++',
  '...',
  '***',
  '___',
  '# Heading',
  '## Tab title',
  '### Description',
  '### Impact',
  '### Remediation',
  '### Affected assets',
  '### Evidence',
  '# Summary',
  '# Tabs',
  '# Links',
  '# Findings',
  '#',
  '##',
  '###',
  '#### deep',
  '#hashtag',
  '\t# tabbed',
  ' # indented',
  'Setext\n===',
  'Setext\n---',
  '```',
  '````',
  '`````',
  '```markdown',
  '````markdown',
  '```yaml',
  '```text cr=␍',
  '```text json',
  '~~~',
  '~~~~',
  '~~~python',
  '``',
  '<!-- comment -->',
  '<!--',
  '-->',
  '<div>',
  '</div>',
  '<script>',
  '<?php',
  '<![CDATA[',
  '<!DOCTYPE',
  '[ref]: https://example.com',
  '[ref]',
  '![img](evidence:sha256:00)',
  'key: value',
  'severity: high',
  '- item',
  '  - nested',
  '> quote',
  '    indented code',
  '1. one',
  '| a | b |\n|---|---|',
  'title: "x"',
  '{a: 1}',
  '[1, 2]',
  'null',
  'true',
  '0x1F',
  '1e3',
  '~',
  '\n',
  '\n\n',
  '\n\n\n',
  '\r\n',
  '\r',
  '\r\r\n',
  '␍',
  '\t',
  '  ',
  ' ',
  '\u00a0',
  '\u200b',
  '\u200d',
  '\u200e',
  '\u200f',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u0085',
  '\u007f',
  '\u001b[31m',
  '\u000b',
  '\u000c',
  'مرحبا بالعالم',
  'שלום עולם',
  '👩‍👩‍👧‍👦',
  '🔥',
  'e\u0301',
  'Z\u0351\u0352\u0353',
  '日本語',
  '\\',
  '\\`',
  '&amp;',
  '&#10;',
  '&#13;',
  '&',
  '"',
  "'",
  '[',
  ']',
  '(',
  ')',
  '<',
  '>',
  '*',
  '_',
  '`',
  'evidence:sha256:',
  '␍␍',
];

const piece = fc.oneof(
  { arbitrary: fc.constantFrom(...TRICKY_PIECES), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map((s) => s.replaceAll('\u0000', '\ufffd')), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 2 },
  { arbitrary: fc.lorem({ maxCount: 8 }), weight: 2 },
);

const LONG_TEXT =
  `${'Long text with `code`, **bold** and a [link](https://example.com). '.repeat(1_600)}\n\n\`\`\`\n${'x'.repeat(1_000)}\n\`\`\`\n`.slice(
    0,
    100_000,
  );

/** Any text the model may hold, usually short; now and then 100,000 characters. */
export const anyText = (maxPieces = 12): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.array(piece, { maxLength: maxPieces }).map((parts) => parts.join('')), weight: 30 },
    { arbitrary: fc.constant(''), weight: 3 },
    { arbitrary: fc.array(piece, { maxLength: 4 }).map((parts) => `${LONG_TEXT}${parts.join('')}`), weight: 1 },
  );

/** Text of at least one and at most `max` UTF-16 units, cut on a code point boundary. */
export const titleText = (max = 300): fc.Arbitrary<string> =>
  fc.oneof({ arbitrary: fc.lorem({ maxCount: 6 }), weight: 3 }, { arbitrary: anyText(6), weight: 2 }).map((s) => {
    const cut = Array.from(s).reduce((acc, ch) => (acc.length + ch.length <= max ? acc + ch : acc), '');
    return cut === '' ? 'x' : cut;
  });

const shortText = (max: number) =>
  anyText(4).map((s) => Array.from(s).reduce((acc, ch) => (acc.length + ch.length <= max ? acc + ch : acc), ''));

const score = fc.integer({ min: 0, max: 100 }).map((n) => n / 10);
const VECTORS = [
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:P/RL:O/RC:C',
  'AV:N/AC:L/Au:N/C:P/I:P/A:P',
  'CVSS2#AV:N/AC:L/Au:N/C:P/I:P/A:P',
  'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
  'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:C/C:L/I:L/A:N',
  'not a vector: odd scanner text',
];
const BASE: Record<string, [Cvss['version'], number]> = {
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H': ['3.1', 9.8],
  'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:P/RL:O/RC:C': ['3.0', 9.8],
  'AV:N/AC:L/Au:N/C:P/I:P/A:P': ['2.0', 7.5],
  'CVSS2#AV:N/AC:L/Au:N/C:P/I:P/A:P': ['2.0', 7.5],
  'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N': ['4.0', 9.3],
  'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:C/C:L/I:L/A:N': ['3.1', 4.7],
};

export const cvssArb: fc.Arbitrary<Cvss> = fc.oneof(
  // Exactly what the vector computes: written as the vector alone.
  fc
    .constantFrom(...Object.keys(BASE))
    .map((vector) => ({ version: BASE[vector]![0], vector, baseScore: BASE[vector]![1] })),
  fc.record(
    {
      version: fc.constantFrom(...CVSS_VERSIONS),
      vector: fc.option(fc.oneof(fc.constantFrom(...VECTORS), shortText(300)), { nil: null }),
      baseScore: fc.option(
        fc.oneof(
          score,
          fc.double({ min: 0, max: 10, noNaN: true }).filter((n) => !Object.is(n, -0)),
        ),
        { nil: null },
      ),
      temporalScore: fc.option(score, { nil: null }),
      temporalVector: fc.option(shortText(300), { nil: null }),
    },
    { requiredKeys: ['version', 'vector', 'baseScore'] },
  ),
);

const cveArb = fc
  .tuple(fc.integer({ min: 1999, max: 2030 }), fc.integer({ min: 1, max: 9_999_999 }))
  .map(([y, n]) => `CVE-${y}-${String(n).padStart(4, '0')}`);

export const assetArb: fc.Arbitrary<AffectedAsset> = fc.record(
  {
    host: fc.oneof(fc.domain(), fc.ipV4(), shortText(200)),
    ip: fc.oneof(fc.ipV4(), fc.ipV6()),
    port: fc.option(fc.integer({ min: 0, max: 65535 }), { nil: null }),
    protocol: fc.constantFrom('tcp', 'udp', '', 'TCP'),
    service: fc.oneof(fc.constantFrom('http', 'https', 'ssh', ''), shortText(100)),
    url: fc.oneof(fc.webUrl(), shortText(300)),
    parameter: shortText(100),
    evidence: fc.oneof(
      anyText(20),
      fc.constant('GET / HTTP/1.1\r\nHost: example.com\r\n\r\n'),
      fc.constant('HTTP/1.1 200 OK\r\n\r\nbody\n[truncated: 3 more bytes]'),
    ),
    excerpt: fc.oneof(
      anyText(20).filter((t) => t.length <= TEXT_LIMITS.assetExcerpt),
      fc.constant('GET / HTTP/1.1\nHost: example.com\n[… 6 headers left out]'),
      fc.constant('```\n[… 3 lines left out]\r\n````'),
    ),
  },
  { requiredKeys: [] },
);

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
export const evidenceArb: fc.Arbitrary<EvidenceRef> = fc.record(
  {
    id: fc.uuid(),
    sha256: hex64,
    fileName: titleText(255),
    caption: shortText(2000),
    contentType: fc.constantFrom(...EVIDENCE_CONTENT_TYPES),
  },
  { requiredKeys: ['sha256', 'fileName', 'caption'] },
);

const sourceArb: fc.Arbitrary<FindingSource> = fc.oneof(
  fc.constant({ kind: 'manual' as const }),
  fc.record(
    { kind: fc.constant('template' as const), templateKey: shortText(300), templateId: fc.uuid() },
    { requiredKeys: ['kind'] },
  ),
  fc.record(
    {
      kind: fc.constant('scanner' as const),
      scanner: fc.constantFrom('nessus', 'burp', 'nmap', 'nuclei', ''),
      scannerVersion: shortText(100),
      ruleId: fc.oneof(fc.integer({ min: 0 }).map(String), shortText(1000)),
    },
    { requiredKeys: ['kind'] },
  ),
);

/** Values of a finding field, by its shape: a new shape is a compile error here until it has one. */
function findingFieldArb(shape: FindingFieldShape): fc.Arbitrary<unknown> {
  switch (shape) {
    case 'title':
      return titleText(500);
    case 'severity':
      return fc.constantFrom(...SEVERITIES);
    case 'status':
      return fc.constantFrom(...FINDING_STATUSES);
    case 'cvss':
      return fc.array(cvssArb, { maxLength: 3 });
    case 'cveList':
      return fc.uniqueArray(cveArb, { maxLength: 4 });
    case 'cweList':
      return fc.uniqueArray(fc.integer({ min: 1, max: 100_000 }), { maxLength: 4 });
    case 'markdown':
      return fc.oneof(fc.constant(''), anyText());
    case 'referenceList':
      return fc.array(fc.oneof(fc.webUrl(), shortText(4000)), { maxLength: 4 });
    case 'assets':
      return fc.array(assetArb, { maxLength: 3 });
    case 'source':
      return sourceArb;
    case 'note':
      return fc.oneof(fc.constant(''), shortText(2000));
    default:
      return shape satisfies never;
  }
}

/** A record of every field of a declaration, each from its shape's arbitrary. */
function fieldsArb<T>(
  entries: ReadonlyArray<readonly [string, { shape: string }]>,
  arb: (shape: never) => fc.Arbitrary<unknown>,
): fc.Arbitrary<T> {
  return fc.record(Object.fromEntries(entries.map(([name, f]) => [name, arb(f.shape as never)]))) as never;
}

export const findingContentArb: fc.Arbitrary<FindingContent> = fieldsArb(FINDING_CONTENT.entries, findingFieldArb);

export const findingArb: fc.Arbitrary<ReportDocumentFinding> = fc
  .tuple(
    fieldsArb<Finding>(FINDING.entries, findingFieldArb),
    fc.option(fc.uuid(), { nil: undefined }),
    fc.array(evidenceArb, { maxLength: 3 }),
  )
  .map(([fields, id, evidence]) => {
    const f: ReportDocumentFinding = { ...fields, evidence };
    if (id !== undefined) f.id = id;
    return f;
  });

const isoDate = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const libraryRef = fc.option(
  fc.record(
    { id: fc.uuid(), key: fc.option(shortText(300), { nil: null }), name: shortText(300) },
    { requiredKeys: ['key', 'name'] },
  ),
  { nil: null },
);

export const retestAssetArb: fc.Arbitrary<RetestAsset> = fc
  .tuple(
    assetArb,
    fc.constantFrom(...ASSET_RETEST_STATUSES),
    fc.oneof(
      fc.constant(''),
      anyText(20),
      fc.constant('Output:\n\nhmac-md5\r\nhmac-sha1-96\n[truncated: 3 more bytes]'),
    ),
  )
  .map(([a, status, evidence]) => {
    const { service: _s, evidence: _e, excerpt: _x, ...place } = a;
    return { ...place, status, evidence };
  });

export const retestResultArb: fc.Arbitrary<RetestResult> = fc.record({
  status: fc.constantFrom(...RETEST_STATUSES),
  statusSetBy: fc.constantFrom(...RETEST_STATUS_SOURCES),
  statusNote: fc.oneof(fc.constant(''), shortText(2000)),
  notes: anyText(),
  retestedAt: fc.option(isoDate, { nil: null }),
  riskAccepted: fc.boolean(),
  riskAcceptedNote: fc.oneof(fc.constant(''), shortText(2000)),
  assets: fc.array(retestAssetArb, { maxLength: 3 }),
  evidence: fc.array(evidenceArb, { maxLength: 2 }),
});

const reportRefArb = fc.option(fc.record({ id: fc.uuid(), title: titleText(500) }, { requiredKeys: ['title'] }), {
  nil: null,
});
export const retestInfoArb: fc.Arbitrary<RetestInfo> = fc.record({
  round: fc.integer({ min: 1, max: 12 }),
  retestOf: reportRefArb,
  original: reportRefArb,
});

function reportFieldArb(shape: ReportFieldShape): fc.Arbitrary<unknown> {
  switch (shape) {
    case 'title':
      return titleText(500);
    case 'reportStatus':
      return fc.constantFrom(...REPORT_STATUSES);
    case 'language':
      return fc.constantFrom('en', 'de', 'de-DE', 'ar', 'he-IL');
    case 'markdown':
      return anyText();
    case 'findingOrder':
      return fc.constantFrom(...FINDING_ORDERS);
    default:
      return shape satisfies never;
  }
}

function projectFieldArb(shape: ProjectFieldShape): fc.Arbitrary<unknown> {
  switch (shape) {
    case 'name':
      return titleText(300);
    case 'projectType':
      return fc.option(shortText(200), { nil: null });
    case 'markdown':
      return anyText();
    case 'projectStatus':
      return fc.constantFrom(...PROJECT_STATUSES);
    case 'date':
      return fc.option(isoDate, { nil: null });
    default:
      return shape satisfies never;
  }
}

function tabFieldArb(shape: TabFieldShape): fc.Arbitrary<unknown> {
  switch (shape) {
    case 'title':
      return titleText(300);
    case 'markdown':
      return anyText();
    case 'placement':
      return fc.constantFrom(...TAB_PLACEMENTS);
    default:
      return shape satisfies never;
  }
}

function linkFieldArb(shape: LinkFieldShape): fc.Arbitrary<unknown> {
  switch (shape) {
    case 'title':
      return titleText(300);
    case 'url':
      return fc.oneof(
        fc.webUrl({ withQueryParameters: true, withFragments: true }),
        fc.tuple(fc.constantFrom('https://', 'http://', 'mailto:'), shortText(200)).map(([a, b]) => a + b),
      );
    default:
      return shape satisfies never;
  }
}

const plainReportDocumentArb: fc.Arbitrary<ReportDocument> = fc
  .record({
    id: fc.uuid(),
    fields: fieldsArb<ReportFields>(REPORT.entries, reportFieldArb),
    client: fc.record({ id: fc.uuid(), name: titleText(300) }, { requiredKeys: ['name'] }),
    projectId: fc.option(fc.uuid(), { nil: undefined }),
    project: fieldsArb<ReportProjectFields>(REPORT_PROJECT.entries, projectFieldArb),
    style: libraryRef,
    template: libraryRef,
    tabs: fc.array(
      fc
        .tuple(fieldsArb<TabFields>(TAB.entries, tabFieldArb), fc.array(evidenceArb, { maxLength: 2 }))
        .map(([tab, evidence]) => ({ ...tab, evidence })),
      { maxLength: 4 },
    ),
    links: fc.array(fieldsArb<LinkFields>(LINK.entries, linkFieldArb), { maxLength: 3 }),
    findings: fc.array(findingArb, { maxLength: 4 }),
  })
  .map(({ id, fields, projectId, project, ...rest }) => ({
    id,
    ...fields,
    ...rest,
    project: projectId === undefined ? project : { id: projectId, ...project },
  }));

/**
 * Any document: a report, or a retest (its round and the reports it follows, and a retest result
 * on nearly every finding: a finding added to a file by hand may have none).
 */
export const reportDocumentArb: fc.Arbitrary<ReportDocument> = fc.oneof(
  { arbitrary: plainReportDocumentArb, weight: 3 },
  {
    arbitrary: plainReportDocumentArb.chain((doc) =>
      fc
        .tuple(
          retestInfoArb,
          fc.array(fc.option(retestResultArb, { nil: undefined, freq: 8 }), {
            minLength: doc.findings.length,
            maxLength: doc.findings.length,
          }),
        )
        .map(([retest, results]) => ({
          ...doc,
          retest,
          findings: doc.findings.map((f, i) => (results[i] ? { ...f, retest: results[i] } : f)),
        })),
    ),
    weight: 2,
  },
);

/**
 * The document as a file gives it back: without database ids (report, client, project, refs, findings, evidence,
 * templateId).
 */
export function withoutIds(doc: ReportDocument): ReportDocument {
  const { id: _id, ...rest } = doc;
  const ref = (r: ReportDocument['style']) => (r === null ? null : { key: r.key, name: r.name });
  const evidence = (e: EvidenceRef): EvidenceRef => {
    const { id: _e, ...ev } = e;
    return ev;
  };
  return {
    ...rest,
    client: { name: doc.client.name },
    project: { name: doc.project.name, startDate: doc.project.startDate, endDate: doc.project.endDate },
    style: ref(doc.style),
    template: ref(doc.template),
    tabs: doc.tabs.map((t) => ({ ...t, evidence: t.evidence.map(evidence) })),
    findings: doc.findings.map((f) => {
      const { id: _f, ...finding } = f;
      const { templateId: _t, ...source } = f.source;
      const out: ReportDocumentFinding = { ...finding, source, evidence: f.evidence.map(evidence) };
      if (f.retest) out.retest = { ...f.retest, evidence: f.retest.evidence.map(evidence) };
      return out;
    }),
    ...(doc.retest
      ? {
          retest: {
            round: doc.retest.round,
            retestOf: doc.retest.retestOf && { title: doc.retest.retestOf.title },
            original: doc.retest.original && { title: doc.retest.original.title },
          },
        }
      : {}),
  };
}
