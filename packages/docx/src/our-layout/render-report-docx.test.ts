import { describe, expect, it } from 'vitest';
import { resolveReportStyle } from '@service/report-model';
import { renderReportDocx } from '../index.ts';
import { SAMPLE_REPORT } from '../template/sample-report.ts';
import { readZip } from '../zip-archive.ts';

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
      tabs: [{ title: nasty, content: nasty, placement: 'before' as const, evidence: [] }],
    };
    const doc = text(
      await renderReportDocx(report, { style: resolveReportStyle(null), loadImage: async () => null }),
      'word/document.xml',
    );
    expect(doc).toContain('abc\ufffdd &lt;/w:t&gt;&lt;w:p&gt; ]]&gt; &amp;amp;');
    expect(doc).not.toMatch(/[\u0000\u0001]/);
  });
});
