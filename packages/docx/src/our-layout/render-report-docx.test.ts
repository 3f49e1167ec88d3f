import { describe, expect, it } from 'vitest';
import { emptyDocumentTab, resolveReportStyle } from '@service/report-model';
import { renderReportDocx } from '../index.ts';
import { SAMPLE_REPORT } from '../template/sample-report.ts';
import { readZip } from '../zip-archive.ts';
import { textWidthTwips } from '../wordml/column-widths.ts';

const PIXEL = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==',
    'base64',
  ),
);
const parts = (docx: Uint8Array) => readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 });
const text = (docx: Uint8Array, name: string) => new TextDecoder().decode(parts(docx).get(name)!);

describe('renderReportDocx', () => {
  it(
    'writes Markdown, severity colours, contents entries, page numbers and the style ' + 'into a valid package',
    async () => {
      const style = resolveReportStyle({
        name: 'Letter',
        pageSize: 'Letter',
        headerText: 'Acme Security',
        footerText: 'Strictly confidential',
        severityColors: { high: '#AA0000' },
      });
      const report = {
        ...SAMPLE_REPORT,
        findings: [
          {
            ...SAMPLE_REPORT.findings[0]!,
            description:
              'Text\n\n- a\n  1. b\n\n```\ncode\n```\n\n![x](https://example.com/x.png) ![y](evidence:sha256:' +
              'c'.repeat(64) +
              ')\n\n<script>alert(1)</script>',
          },
        ],
      };
      const docx = await renderReportDocx(report, {
        style,
        loadImage: async (ref) => (ref.sha256.startsWith('b') ? PIXEL : null),
        now: new Date('2024-03-10T00:00:00Z'),
      });
      const doc = text(docx, 'word/document.xml');
      expect(doc).toContain('<w:pgSz w:w="12240" w:h="15840"');
      expect(doc).toContain('w:fill="AA0000"');
      expect(doc).toContain('<w:pStyle w:val="Code"/>');
      expect(doc).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(doc).toContain('[Image https://example.com/x.png: only evidence images of this report are shown]');
      expect(doc).toContain('was not found]');
      expect(doc).toContain('TOC \\h \\o &quot;1-2&quot;');
      expect(doc).toContain('1. SQL injection');
      const all = [...parts(docx).keys()];
      expect(all.filter((n) => n.startsWith('word/media/'))).toHaveLength(2); // the proof image and the chart
      expect(text(docx, 'word/numbering.xml')).toMatch(/<w:abstractNum [\s\S]*<w:num /);
      const footer = all
        .filter((n) => /word\/footer\d*\.xml/.test(n))
        .map((n) => text(docx, n))
        .join('');
      expect(footer).toContain('Strictly confidential');
      expect(footer).toContain('NUMPAGES');
    },
  );

  it('never fails on hostile text: control characters, lone surrogates, markup', async () => {
    const nasty = 'a\u0000b\u0001c\ud800d </w:t><w:p> ]]> &amp;';
    const report = {
      ...SAMPLE_REPORT,
      title: nasty,
      tabs: [{ ...emptyDocumentTab(nasty), content: nasty }],
    };
    const doc = text(
      await renderReportDocx(report, { style: resolveReportStyle(null), loadImage: async () => null }),
      'word/document.xml',
    );
    expect(doc).toContain('abc\ufffdd &lt;/w:t&gt;&lt;w:p&gt; ]]&gt; &amp;amp;');
    expect(doc).not.toContain('\u0000');
    expect(doc).not.toContain('\u0001');
  });

  it('writes a German report in German: headings, labels, values, numbers, dates, footer', async () => {
    const docx = await renderReportDocx(
      { ...SAMPLE_REPORT, language: 'de-DE' },
      { style: resolveReportStyle(null), loadImage: async () => null, now: new Date('2024-03-10T00:00:00Z') },
    );
    const doc = text(docx, 'word/document.xml');
    for (const word of [
      'Inhalt',
      'Zusammenfassung',
      'Befunde im Überblick',
      'Übersicht der Befunde',
      'Schweregrad',
      'Betroffene Systeme (1)',
      'Beschreibung',
      'Empfehlung',
      'Referenzen',
      'Hoch',
      'Niedrig',
      'Offen',
      'Behoben',
      'Kunde',
      'Prüfzeitraum',
      'Entwurf',
      '4. März 2024 – 8. März 2024',
      '10. März 2024',
      '9,8',
    ])
      expect(doc, word).toContain(`${word}</w:t>`);
    for (const english of ['>Contents<', '>Severity<', '>Affected assets', '>Description<', '>Client<'])
      expect(doc, english).not.toContain(english);
    const footer = [...parts(docx).keys()]
      .filter((n) => /word\/footer\d*\.xml/.test(n))
      .map((n) => text(docx, n))
      .join('');
    expect(footer).toContain('Seite ');
    expect(footer).toContain(' von ');
    expect(text(docx, 'word/settings.xml')).toMatch(/<w:updateFields( w:val="true")?\/>/);
  });

  it('sizes table columns by their content, so no header word is broken', async () => {
    const headers = ['Environment', 'Authentication', 'Vulnerability', 'Exploitability', 'Remediation', 'Port'];
    const report = {
      ...SAMPLE_REPORT,
      tabs: [
        {
          ...emptyDocumentTab('Wide table'),
          content: `| ${headers.join(' | ')} |\n|${headers.map(() => '---').join('|')}|\n| ${headers.map((_, i) => (i === 2 ? 'A long cell that wants a lot of the width of the table to itself' : 'x')).join(' | ')} |`,
        },
      ],
    };
    const doc = text(
      await renderReportDocx(report, { style: resolveReportStyle(null), loadImage: async () => null }),
      'word/document.xml',
    );
    const table = doc.slice(doc.indexOf('Wide table'));
    const widths = [...table.slice(0, table.indexOf('</w:tblGrid>')).matchAll(/<w:gridCol w:w="(\d+)"/g)].map((m) =>
      Number(m[1]),
    );
    expect(widths).toHaveLength(headers.length);
    for (const [i, h] of headers.entries())
      expect(widths[i], h).toBeGreaterThanOrEqual(textWidthTwips(h, 18, true) + 180);
    // The long cell gets the room the others do not need.
    expect(widths[2]).toBe(Math.max(...widths));
  });
});
