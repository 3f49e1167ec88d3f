import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentLink, emptyDocumentTab, emptyReportDocument, type ReportDocument } from '@service/report-model';
import { budgetMs, laneSize } from '@service/test-lanes';
import { MarkdownFormatError, exportReportMarkdown, importReportMarkdown } from './index.ts';
import { EXAMPLE_REPORT } from './testing/example-report.ts';
import { reportDocumentArb, withoutIds } from './testing/report-document-arbitraries.ts';
import { renderedOutline } from './testing/rendered-outline.ts';
import { FINDING_SECTIONS } from './finding-fields.ts';

const RUNS = laneSize(200, 50);
const DOC = readFileSync(new URL('../../../docs/markdown-format.md', import.meta.url), 'utf8');

function docExample(heading: string): string {
  const after = DOC.slice(DOC.indexOf(`\n${heading}\n`));
  const m = /\n(`{4,})markdown\n([\s\S]*?)\n?\1\n/.exec(after);
  if (!m) throw new Error(`no example under ${heading}`);
  return m[2]!.endsWith('\n') ? m[2]! : `${m[2]}\n`;
}

function error(fn: () => unknown): MarkdownFormatError {
  try {
    fn();
  } catch (err) {
    if (err instanceof MarkdownFormatError) return err;
    throw err;
  }
  throw new Error('expected a MarkdownFormatError');
}

/** The outline a renderer must show for a document: every part, tab, finding and section in order. */
function expectedOutline(doc: ReportDocument): unknown[] {
  const outline: unknown[] = ['# Summary', '# Tabs'];
  for (const t of doc.tabs) outline.push(expect.stringMatching(/^## /), ...(t.evidence.length ? ['### Evidence'] : []));
  outline.push('# Links', '# Findings');
  for (const f of doc.findings) {
    outline.push(expect.stringMatching(/^## /));
    // Content sections always appear; a finding's own sections (details) only when they hold text.
    for (const s of FINDING_SECTIONS) if (s.part === 'content' || f[s.field] !== '') outline.push(`### ${s.heading}`);
    if (f.affectedAssets.length) outline.push('### Affected assets');
    if (f.evidence.length) outline.push('### Evidence');
    if (f.retest) {
      outline.push('### Retest');
      if (f.retest.assets.length) outline.push('### Retest assets');
      if (f.retest.evidence.length) outline.push('### Retest evidence');
    }
  }
  return outline;
}

/** Lines of `b` that differ from `a`, as [line number, old, new], for equal-length texts. */
function changedLines(a: string, b: string): Array<[number, string, string]> {
  const x = a.split('\n');
  const y = b.split('\n');
  expect(y.length).toBe(x.length);
  return x.flatMap((line, i) => (line === y[i] ? [] : [[i + 1, line, y[i]!] as [number, string, string]]));
}

// Why manual: a file without the key reads as `manual` (hand-written files list findings in the order meant).
const empty: ReportDocument = { ...emptyReportDocument('Empty', 'C', 'P'), findingOrder: 'manual' };

describe('report round trip', () => {
  it(
    'export(import(export(doc))) === export(doc), import(export(doc)) equals doc ' +
      'without ids, and markdown-it renders every part in order',
    () => {
      fc.assert(
        fc.property(reportDocumentArb, (doc) => {
          const text = exportReportMarkdown(doc);
          const { document, warnings } = importReportMarkdown(text);
          expect(document).toEqual(withoutIds(doc));
          expect(warnings).toEqual([]);
          expect(exportReportMarkdown(document)).toBe(text);
          expect(text).not.toMatch(/\r/);
          expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true);
          expect(renderedOutline(text)).toEqual(expectedOutline(doc));
        }),
        { numRuns: RUNS },
      );
    },
    budgetMs(RUNS, 300),
  );

  it('reads the example of the documentation and writes it back byte for byte', () => {
    const text = docExample('### Example report file');
    expect(exportReportMarkdown(EXAMPLE_REPORT)).toBe(text);
    const { document, warnings } = importReportMarkdown(text);
    expect(warnings).toEqual([]);
    expect(document).toEqual(EXAMPLE_REPORT);
  });

  it('keeps an asset excerpt apart from its evidence, and reads files written before excerpts as before', () => {
    const text = docExample('### Example report file');
    const asset = importReportMarkdown(text).document.findings[0]!.affectedAssets[0]!;
    expect(asset.evidence).toContain('\r\nHost: shop.example.com\r\n');
    expect(asset.excerpt).toBe(EXAMPLE_REPORT.findings[0]!.affectedAssets[0]!.excerpt);

    // The same file as it was written before assets had excerpts: no ```excerpt block.
    const before = text.replace(/```excerpt\n[\s\S]*?\n```\n\n/, '');
    expect(before).not.toContain('```excerpt');
    const { document, warnings } = importReportMarkdown(before);
    expect(warnings).toEqual([]);
    expect(document.findings[0]!.affectedAssets[0]).not.toHaveProperty('excerpt');
    expect(document.findings[0]!.affectedAssets[0]!.evidence).toBe(asset.evidence);
    expect(exportReportMarkdown(document)).toBe(before);
  });

  it('writes an empty report as its four parts', () => {
    const text = exportReportMarkdown(empty);
    expect(text).toBe(
      '---\nformat: service-report/1\ntitle: Empty\nstatus: draft\nlanguage: ' +
        'en\nfindingOrder: manual\nclient: C\nproject:\n  name: P\n  startDate: null\n  endDate: null\nstyle: ' +
        'null\ntemplate: null\n---\n\n# Summary\n\n# Tabs\n\n# Links\n\n# Findings\n',
    );
    expect(importReportMarkdown(text).document).toEqual(empty);
  });

  it('carries a whole exported report inside a tab, byte for byte', () => {
    const inner = exportReportMarkdown(EXAMPLE_REPORT);
    const doc: ReportDocument = {
      ...empty,
      summary: inner,
      tabs: [{ ...emptyDocumentTab('Appendix'), content: inner, placement: 'after' }],
    };
    const text = exportReportMarkdown(doc);
    expect(text).toContain('\n````markdown\n---\nformat: service-report/1\n');
    expect(importReportMarkdown(text).document).toEqual(doc);
  });

  it.each([
    ['front-matter and rule lines', '---\ntitle: x\n---\n+++\ntoml = 1\n+++\n***'],
    ['our own markers', '# Summary\n# Tabs\n## Tab\n### Description\n### Evidence\n# Findings\n## Finding'],
    ['setext headings', 'Title\n=====\n\nSub\n---'],
    ['fences of every length', '```\n````\n`````markdown\n~~~\n~~~~python\n``'],
    ['an unclosed fence', 'text\n\n```js\nconsole.log(1)'],
    ['an unclosed HTML comment', 'text\n\n<!-- open comment\n\nmore'],
    ['a closed HTML comment', '<!-- note -->\ntext'],
    ['YAML-looking text', 'severity: critical\nstatus: open\n- item\nkey: [1, 2]'],
    ['a link reference definition', '[ref]: https://example.com\n\nSee [ref].'],
    ['CR and the CR symbol', 'a\r\nb\rc␍d'],
    ['RTL, emoji, combining and zero-width characters', 'مرحبا שלום 👩‍👩‍👧‍👦 e\u0301 a\u200bb\u200d\ufeff'],
    ['blank lines around the text', '\n\n  text  \n\n'],
    ['control characters', '\u0001\u0007\u001b[31m\u007f\u0085\u2028\u2029\t\v\f'],
  ])('carries %s byte for byte in every text field', (_name, text) => {
    const finding = {
      ...EXAMPLE_REPORT.findings[0]!,
      description: text,
      impact: text,
      remediation: text,
      affectedAssets: [
        { host: text, evidence: text, excerpt: text },
        { host: 'b', excerpt: text },
      ],
      evidence: [{ sha256: 'a'.repeat(64), fileName: text, caption: text }],
    };
    const doc: ReportDocument = {
      ...EXAMPLE_REPORT,
      title: text,
      summary: text,
      tabs: [{ ...emptyDocumentTab(text), content: text }],
      links: [documentLink(text, `https://x/${text}`)],
      findings: [{ ...finding, title: text }],
    };
    const exported = exportReportMarkdown(doc);
    expect(importReportMarkdown(exported).document).toEqual(doc);
    expect(renderedOutline(exported)).toEqual(expectedOutline(doc));
  });

  it('reads the same document from a file saved with CRLF, a byte order mark and no final newline', () => {
    const text = exportReportMarkdown(EXAMPLE_REPORT);
    const windows = `\ufeff${text.replace(/\n/g, '\r\n').replace(/\r\n$/, '')}`;
    expect(importReportMarkdown(windows).document).toEqual(EXAMPLE_REPORT);
    expect(importReportMarkdown(new TextEncoder().encode(windows)).document).toEqual(EXAMPLE_REPORT);
  });
});

describe("a person's edit", () => {
  const text = exportReportMarkdown(EXAMPLE_REPORT);

  it('changing one line of a remediation shows up alone in the next export', () => {
    const edited = text.replace(
      'Send both headers on every response.',
      'Send both headers on every response, also on errors.',
    );
    const again = exportReportMarkdown(importReportMarkdown(edited).document);
    expect(again).toBe(edited);
    expect(changedLines(text, again)).toEqual([
      [
        expect.any(Number),
        'Send both headers on every response.',
        'Send both headers on every response, also on errors.',
      ],
    ]);
  });

  it('fixing a typo in a tab shows up alone in the next export', () => {
    const edited = text.replace('well protected against common attacks', 'well protected against most attacks');
    const { document } = importReportMarkdown(edited);
    expect(document.tabs[0]!.content).toContain('most attacks');
    expect(changedLines(text, exportReportMarkdown(document))).toHaveLength(1);
  });

  it('moving a finding block reorders the findings and nothing else', () => {
    const start = text.indexOf('## SQL injection in the login form');
    const second = text.indexOf('## Missing security headers');
    const swapped = `${text.slice(0, start)}${text.slice(second)}\n${text.slice(start, second).replace(/\n+$/, '\n')}`;
    const { document } = importReportMarkdown(swapped);
    expect(document.findings.map((f) => f.title)).toEqual([
      'Missing security headers',
      'SQL injection in the login form',
    ]);
    expect(document.findings).toEqual([EXAMPLE_REPORT.findings[1], EXAMPLE_REPORT.findings[0]]);
    expect(exportReportMarkdown(document)).toBe(swapped);
  });

  it('adding a finding by hand needs only a heading and a severity', () => {
    const edited =
      `${text}\n## Directory listing\n\n\`\`\`yaml\nseverity: low\n\`\`\`\n\n### ` +
      `Description\n\nThe /backup folder lists its files.\n`;
    const added = importReportMarkdown(edited).document.findings[2]!;
    expect(added).toMatchObject({
      title: 'Directory listing',
      severity: 'low',
      status: 'open',
      source: { kind: 'manual' },
      description: 'The /backup folder lists its files.',
      impact: '',
      cvss: [],
    });
  });
});

describe('report import errors', () => {
  const text = exportReportMarkdown(EXAMPLE_REPORT);
  const lineOf = (needle: string, in_ = text) => in_.slice(0, in_.indexOf(needle)).split('\n').length;

  it.each<[string, (t: string) => string, (t: string) => number, number, RegExp]>([
    [
      'text where a finding heading belongs',
      (t) => t.replace('# Findings\n\n', '# Findings\n\nstray text\n\n'),
      (t) => lineOf('stray text', t),
      1,
      /expected a finding heading `## ...` after `# Findings`/,
    ],
    [
      'a misspelt severity',
      (t) => t.replace('severity: medium', 'severity: hgih'),
      (t) => lineOf('severity: hgih', t),
      11,
      /`severity` must be one of critical, high, medium, low, info; found "hgih"/,
    ],
    [
      'an unknown part',
      (t) => t.replace('# Links', '# Appendix'),
      (t) => lineOf('# Appendix', t),
      1,
      /unknown part `# Appendix`/,
    ],
    [
      'parts out of order',
      (t) => `${t}\n# Tabs\n`,
      (t) => t.split('\n').length - 1,
      1,
      /`# Tabs` must come before `# Findings`/,
    ],
    [
      'a bad CVE',
      (t) => t.replace('cves: []\ncwes: [693]', 'cves: [CVE-24]\ncwes: [693]'),
      (t) => lineOf('cves: [CVE-24]', t),
      8,
      /`findings\[1\]\.cves\[0\]` must match/,
    ],
    [
      'a link that is not http, https or mailto',
      (t) => t.replace('https://jira.example.com', 'ftp://jira.example.com'),
      (t) => lineOf('- [Ticket SEC-42]', t),
      1,
      /`links\[0\]\.url`/,
    ],
    [
      'a bad date',
      (t) => t.replace('startDate: 2024-03-04', 'startDate: 2024-3-4'),
      (t) => lineOf('startDate', t),
      14,
      /`project\.startDate`/,
    ],
    [
      'an evidence line that is not an image',
      (t) => t.replace('![Logged in', 'Logged in'),
      (t) => lineOf('Logged in as admin', t),
      1,
      /expected an evidence image/,
    ],
    [
      'an evidence target without a hash',
      (t) => t.replace('evidence:sha256:2c26', 'evidence:sha1:2c26'),
      (t) => lineOf('evidence:sha1', t),
      42,
      /the image target must be `evidence:sha256:`/,
    ],
    [
      'an unclosed fence',
      (t) => t.replace(/url: https:\/\/shop.example.com\/\n```\n$/, 'url: https://shop.example.com/\n'),
      (t) => t.split('\n').length - 5,
      1,
      /never closed/,
    ],
    [
      'a finding without its YAML block',
      (t) => t.replace(/## Missing security headers\n\n```yaml\n[\s\S]*?\n```\n/, '## Missing security headers\n'),
      (t) => lineOf('## Missing security headers', t) + 2,
      1,
      /expected the ```yaml block of finding "Missing security headers"/,
    ],
    [
      'a heading inside a summary written as-is',
      (t) => t.replace('medium issue.', 'medium issue.\n\n## Details'),
      (t) => lineOf('## Details', t),
      1,
      /the Summary part holds only/,
    ],
    [
      'a section twice',
      (t) => t.replace('### Impact\n\n### Remediation', '### Impact\n\n### Impact'),
      (t) => lineOf('### Impact\n\n### Impact', t) + 2,
      1,
      /`### Impact` appears twice/,
    ],
    [
      'a wrong format',
      (t) => t.replace('format: service-report/1', 'format: service-report/2'),
      () => 2,
      9,
      /this version of the service reads `service-report\/1`/,
    ],
    [
      'a port that is not a number',
      (t) => t.replace('port: 443\nprotocol: tcp\nservice', 'port: https\nprotocol: tcp\nservice'),
      (t) => lineOf('port: https', t),
      7,
      /`port` must be a whole number/,
    ],
  ])('refuses %s at its line and column', (_name, edit, line, column, message) => {
    const broken = edit(text);
    expect(broken).not.toBe(text);
    const err = error(() => importReportMarkdown(broken));
    expect(err.message).toMatch(message);
    expect([err.line, err.column]).toEqual([line(broken), column]);
    expect(err.message.startsWith(`line ${err.line}, column ${err.column}: `)).toBe(true);
    expect(err.code).toBe('invalid_markdown');
    expect(err.status).toBe(422);
  });

  it('refuses U+0000 and text that is not UTF-8, naming the line', () => {
    expect(error(() => importReportMarkdown(text.replace('Denial of service.', 'Denial\u0000'))).line).toBe(
      lineOf('Denial of service.'),
    );
    const bytes = new TextEncoder().encode(text);
    const at = text.indexOf('Denial of service.');
    bytes[new TextEncoder().encode(text.slice(0, at)).length] = 0xff;
    const err = error(() => importReportMarkdown(bytes));
    expect(err.message).toMatch(/not valid UTF-8/);
    expect([err.line, err.column]).toEqual([lineOf('Denial of service.'), 1]);
  });

  it('refuses a file over the size cap as payload_too_large', () => {
    const err = error(() => importReportMarkdown(text, { maxBytes: 1000 }));
    expect(err.code).toBe('payload_too_large');
    expect(err.status).toBe(413);
    expect(error(() => importReportMarkdown(new Uint8Array(2000), { maxBytes: 1000 })).code).toBe('payload_too_large');
  });

  it('refuses more evidence images than a finding may hold', () => {
    const line = '![x](evidence:sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae "x.png")\n';
    const err = error(() => importReportMarkdown(`${text}\n### Evidence\n\n${line.repeat(1_001)}`));
    expect(err.message).toMatch(/at most 1000 evidence images/);
  });

  it('warns about unknown keys instead of failing', () => {
    const { document, warnings } = importReportMarkdown(
      text
        .replace('status: review\n', 'status: review\nreviewer: Ann\n')
        .replace('severity: medium\n', 'severity: medium\nowner: Bob\n'),
    );
    expect(document).toEqual(EXAMPLE_REPORT);
    expect(warnings).toEqual([
      expect.stringMatching(/^line 5, column 1: unknown key `reviewer` in the front matter ignored/),
      expect.stringMatching(/unknown key `owner` in the YAML block of finding "Missing security headers" ignored/),
    ]);
  });
});
