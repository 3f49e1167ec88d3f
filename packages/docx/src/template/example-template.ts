import { FINDING_MARKDOWN_FIELDS } from '@service/report-model';
import { escapeXml } from '../xml-text.ts';
import { paragraph, run, table, type ParagraphProps } from '../wordml/wordml.ts';

/**
 * The parts of the example Word template shipped in the library (and used by the tests): a
 * firm's report as Word would hold it, with every kind of tag. Colours and fonts are the
 * defaults of our own layout; a firm changes them in Word.
 */

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NAVY = '1F3A5F';
const BLUE = '4A6FA5';

const p = (style: string | null, text: string, extra: ParagraphProps = {}) =>
  paragraph({ style, ...extra }, text === '' ? '' : run(text));
const tag = (t: string) => p(null, t);
const cell = (content: string, fill?: string) => ({ content, fill });
const headerCell = (text: string) => cell(paragraph({ style: 'TableHeading' }, run(text)), NAVY);
const textCell = (text: string, style = 'TableText') => cell(paragraph({ style }, run(text)));
const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';

function documentXml(): string {
  const body: string[] = [];
  // Cover page
  body.push(p(null, '', { spacing: { before: 2400, after: 0 } }));
  body.push(p('CoverKicker', '{coverTitle}'));
  body.push(p('Title', '{title}'));
  body.push(p('Subtitle', '{client} · {project}'));
  body.push(
    table({
      widths: [2600, 6472],
      grid: null,
      rows: [
        ['{label.client}', '{client}'],
        ['{label.project}', '{project}'],
        ['{label.testingPeriod}', '{testingPeriod}'],
        ['{label.reportStatus}', '{status}'],
        ['{label.date}', '{date}'],
      ].map(([label, value]) => [textCell(label!, 'CoverLabel'), textCell(value!, 'CoverValue')]),
    }),
  );
  body.push(pageBreak);
  // Contents: the export writes the headings into the field; Word and the PDF export add the pages.
  body.push(p('TOCHeading', '{label.contents}'));
  body.push(
    `<w:p><w:pPr><w:pStyle w:val="TOC1"/><w:tabs><w:tab w:val="right" w:leader="dot" ` +
      `w:pos="9062"/></w:tabs></w:pPr><w:r><w:fldChar w:fldCharType="begin" ` +
      `w:dirty="true"/></w:r><w:r><w:instrText xml:space="preserve"> TOC \\o "1-2" \\h ` +
      `\\z \\u </w:instrText></w:r><w:r><w:fldChar ` +
      `w:fldCharType="separate"/></w:r><w:r><w:t>{label.contents}</w:t></w:r><w:r><w:fldChar ` +
      `w:fldCharType="end"/></w:r></w:p>`,
  );
  // Summary and narrative tabs
  body.push(
    tag('{#summary}'),
    p('Heading1', '{label.summary}', { pageBreakBefore: true }),
    tag('{@summary}'),
    tag('{/summary}'),
  );
  const tabs = (list: string) => [
    tag(`{#${list}}`),
    p('Heading1', '{title}', { pageBreakBefore: true }),
    tag('{@content}'),
    tag('{#evidence}'),
    tag('{@image}'),
    p('Caption', '{label.figure}: {caption}'),
    tag('{/evidence}'),
    tag(`{/${list}}`),
  ];
  body.push(...tabs('tabsBefore'));
  // Findings overview. {shadeCell} gives a cell the severity's colour from the report's style.
  body.push(p('Heading1', '{label.findingsOverview}', { pageBreakBefore: true }));
  body.push(tag('{^hasFindings}'), p(null, '{label.noFindings}'), tag('{/hasFindings}'));
  body.push(tag('{#hasFindings}'), tag('{@severityChart}'));
  body.push(
    table({
      widths: [3000, 1500],
      style: 'TableGrid',
      header: [headerCell('{label.severity}'), headerCell('{label.findings}')],
      rows: [
        [
          textCell('{#severities}{shadeCell}{severity}', 'TableStrong'),
          textCell('{count}{/severities}', 'TableNumber'),
        ],
        [textCell('{label.total}', 'TableStrong'), textCell('{findingCount}', 'TableNumberStrong')],
      ],
    }),
  );
  body.push(p('Heading2', '{label.summaryOfFindings}'));
  body.push(
    table({
      widths: [600, 4772, 1500, 900, 1300],
      style: 'TableGrid',
      header: ['{label.number}', '{label.finding}', '{label.severity}', '{label.cvss}', '{label.status}'].map(
        headerCell,
      ),
      rows: [
        [
          textCell('{#findings}{number}'),
          textCell('{title}'),
          textCell('{shadeCell}{severity}', 'TableStrong'),
          textCell('{cvssScore}'),
          textCell('{status}{/findings}'),
        ],
      ],
    }),
  );
  body.push(tag('{/hasFindings}'));
  // A retest's results: only in a retest ({#isRetest}). {retestShadeCell} colours by the retest status.
  body.push(
    tag('{#isRetest}'),
    p('Heading1', '{label.retestResults}', { pageBreakBefore: true }),
    p(null, '{label.retestRound} {retestRound} · {label.retestOf}: {retestOf}'),
    tag('{@retestChart}'),
    table({
      widths: [600, 4172, 1500, 1500, 1300],
      style: 'TableGrid',
      header: [
        '{label.number}',
        '{label.finding}',
        '{label.originalSeverity}',
        '{label.retestStatus}',
        '{label.retestDate}',
      ].map(headerCell),
      rows: [
        [
          textCell('{#findings}{number}'),
          textCell('{title}'),
          textCell('{shadeCell}{severity}', 'TableStrong'),
          textCell('{retestShadeCell}{retestStatus}', 'TableStrong'),
          textCell('{retestDate}{/findings}'),
        ],
      ],
    }),
    tag('{/isRetest}'),
  );
  // Findings. {shadeParagraph} shades the heading in the severity's colour; {colorText} colours the score.
  body.push(tag('{#hasFindings}'), p('Heading1', '{label.findings}', { pageBreakBefore: true }), tag('{/hasFindings}'));
  body.push(tag('{#findings}'));
  body.push(p('Heading2', '{shadeParagraph}{number}. {title}', { indent: { left: 113, right: 113 } }));
  body.push(
    table({
      widths: [1700, 2836, 1500, 3036],
      style: 'TableGrid',
      rows: [
        [
          textCell('{label.severity}', 'TableStrong'),
          textCell('{shadeCell}{severity}', 'TableStrong'),
          textCell('{label.status}', 'TableStrong'),
          textCell('{status}'),
        ],
        [
          textCell('{label.cvss} {cvssVersion}', 'TableStrong'),
          textCell('{colorText}{cvssScore}', 'TableStrong'),
          textCell('{label.vector}', 'TableStrong'),
          textCell('{cvssVector}', 'TableCode'),
        ],
        [
          textCell('{label.cve}', 'TableStrong'),
          textCell('{cveList}'),
          textCell('{label.cwe}', 'TableStrong'),
          textCell('{cweList}'),
        ],
      ],
    }),
  );
  // Why the severity differs from the score's band, when it does.
  body.push(tag('{#severityReason}'), p(null, '{label.severityReason}: {severityReason}'), tag('{/severityReason}'));
  body.push(tag('{#hasAssets}'), p('Heading3', '{label.affectedAssets} ({assetCount})'));
  body.push(
    table({
      widths: [3400, 1500, 4172],
      style: 'TableGrid',
      header: ['{label.host}', '{label.service}', '{label.url}'].map(headerCell),
      rows: [[textCell('{#affectedAssets}{location}'), textCell('{service}'), textCell('{url}{/affectedAssets}')]],
    }),
  );
  body.push(tag('{/hasAssets}'));
  // One section per Markdown field of a finding, each only when it has text.
  for (const { name } of FINDING_MARKDOWN_FIELDS)
    body.push(tag(`{#${name}}`), p('Heading3', `{label.${name}}`), tag(`{@${name}}`), tag(`{/${name}}`));
  body.push(
    tag('{#hasReferences}'),
    p('Heading3', '{label.references}'),
    // Why the loop tags have paragraphs of their own: the bullet paragraph repeats, one reference each.
    tag('{#references}'),
    p('ListBullet', '{.}'),
    tag('{/references}'),
    tag('{/hasReferences}'),
  );
  body.push(
    tag('{#hasEvidence}'),
    p('Heading3', '{label.evidence}'),
    tag('{#evidence}'),
    tag('{@image}'),
    p('Caption', '{label.figure} {number}: {caption}'),
    tag('{/evidence}'),
    tag('{/hasEvidence}'),
  );
  // Scanner evidence as the style's evidence mode shows it: excerpts by default, with the entry of
  // the whole evidence in the appendix when the mode is `appendix`.
  body.push(
    tag('{#hasAssetEvidence}'),
    p('Heading3', '{label.evidencePerAsset}'),
    tag('{#affectedAssets}'),
    tag('{#evidence}'),
    p('Heading4', '{location} {url}'),
    p('Code', '{evidence}'),
    tag('{#evidenceNumber}'),
    p('Caption', '{label.fullEvidence}: {evidenceNumber}'),
    tag('{/evidenceNumber}'),
    tag('{/evidence}'),
    tag('{/affectedAssets}'),
    tag('{#evidenceLeftOut}'),
    p(null, '{evidenceLeftOut}'),
    tag('{/evidenceLeftOut}'),
    tag('{/hasAssetEvidence}'),
  );
  // The finding's retest, in a retest only: status and date, notes, status per asset, retest evidence.
  body.push(
    tag('{#retestStatusKey}'),
    p('Heading3', '{label.retest}'),
    table({
      widths: [1700, 2836, 1500, 3036],
      style: 'TableGrid',
      rows: [
        [
          textCell('{label.retestStatus}', 'TableStrong'),
          textCell('{retestShadeCell}{retestStatus}', 'TableStrong'),
          textCell('{label.retestDate}', 'TableStrong'),
          textCell('{retestDate}'),
        ],
      ],
    }),
    tag('{#retestStatusSetByTester}'),
    p(null, '{label.statusSetByTester}: {retestStatusNote}'),
    tag('{/retestStatusSetByTester}'),
    tag('{#riskAccepted}'),
    p(null, '{label.riskAccepted}: {riskAcceptedNote}'),
    tag('{/riskAccepted}'),
    tag('{#retestNotes}'),
    p('Heading4', '{label.retestNotes}'),
    tag('{@retestNotes}'),
    tag('{/retestNotes}'),
    tag('{#hasRetestAssets}'),
    p('Heading4', '{label.statusPerAsset}'),
    table({
      widths: [3400, 3672, 2000],
      style: 'TableGrid',
      header: ['{label.host}', '{label.url}', '{label.retestStatus}'].map(headerCell),
      rows: [
        [
          textCell('{#retestAssets}{location}'),
          textCell('{url}'),
          textCell('{shadeCell}{status}{/retestAssets}', 'TableStrong'),
        ],
      ],
    }),
    tag('{/hasRetestAssets}'),
    tag('{#hasRetestEvidence}'),
    p('Heading4', '{label.retestEvidence}'),
    tag('{#retestEvidence}'),
    tag('{@image}'),
    p('Caption', '{label.figure}: {caption}'),
    tag('{/retestEvidence}'),
    tag('{/hasRetestEvidence}'),
    tag('{/retestStatusKey}'),
  );
  body.push(tag('{/findings}'));
  // Appendices: the report's own, then the whole scanner evidence (style mode `appendix`).
  body.push(...tabs('tabsAfter'));
  body.push(
    tag('{#hasEvidenceAppendix}'),
    p('Heading1', '{label.evidenceAppendix}', { pageBreakBefore: true }),
    p(null, '{label.evidenceAppendixIntro}'),
    tag('{#evidenceAppendix}'),
    p('Heading4', '{number} · {findingNumber}. {findingTitle}: {location} {url}'),
    p('Code', '{evidence}'),
    tag('{/evidenceAppendix}'),
    tag('{/hasEvidenceAppendix}'),
  );
  // Links
  body.push(
    tag('{#hasLinks}'),
    p('Heading1', '{label.links}'),
    tag('{#links}'),
    p('ListBullet', '{title}: {url}'),
    tag('{/links}'),
    tag('{/hasLinks}'),
  );
  const sect =
    `<w:sectPr><w:headerReference w:type="default" ` +
    `r:id="rIdHeader"/><w:footerReference w:type="default" r:id="rIdFooter"/>` +
    (`<w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1417" w:right="1417" ` +
      `w:bottom="1134" w:left="1417" w:header="708" w:footer="567" ` +
      `w:gutter="0"/><w:titlePg/></w:sectPr>`);
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document ` +
    `xmlns:w="${W}" ` +
    `xmlns:r="${R}"><w:body>${body.join('')}${sect}</w:body></w:document>`
  );
}

function style(type: 'paragraph' | 'character' | 'table', id: string, name: string, inner: string, extra = ''): string {
  return `<w:style w:type="${type}"${extra} w:styleId="${id}"><w:name w:val="${escapeXml(name)}"/>${inner}</w:style>`;
}

function stylesXml(): string {
  const font = (f: string) => `<w:rFonts w:ascii="${f}" w:hAnsi="${f}" w:cs="${f}" w:eastAsia="${f}"/>`;
  const heading = (n: number, size: number, color: string, before: number) =>
    style(
      'paragraph',
      `Heading${n}`,
      `heading ${n}`,
      `<w:basedOn w:val="Normal"/><w:next ` +
        `w:val="Normal"/><w:qFormat/><w:pPr><w:keepNext/><w:keepLines/><w:spacing ` +
        `w:before="${before}" w:after="120"/><w:outlineLvl ` +
        `w:val="${n - 1}"/></w:pPr><w:rPr><w:b/><w:bCs/><w:color w:val="${color}"/><w:sz ` +
        `w:val="${size}"/><w:szCs w:val="${size}"/></w:rPr>`,
    );
  const grid = (edge: string) => `<w:${edge} w:val="single" w:sz="4" w:space="0" w:color="A6A6A6"/>`;
  const styles = [
    style(
      'paragraph',
      'Normal',
      'Normal',
      '<w:qFormat/><w:pPr><w:spacing w:after="120" w:line="264" w:lineRule="auto"/></w:pPr>',
      ' w:default="1"',
    ),
    style(
      'character',
      'DefaultParagraphFont',
      'Default Paragraph Font',
      '<w:uiPriority w:val="1"/><w:semiHidden/>',
      ' w:default="1"',
    ),
    style(
      'table',
      'TableNormal',
      'Normal Table',
      '<w:semiHidden/><w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top ' +
        'w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" ' +
        'w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr>',
      ' w:default="1"',
    ),
    style(
      'paragraph',
      'Title',
      'Title',
      `<w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:spacing ` +
        `w:after="200"/></w:pPr><w:rPr><w:b/><w:color w:val="${NAVY}"/><w:sz ` +
        `w:val="56"/><w:szCs w:val="56"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'Subtitle',
      'Subtitle',
      `<w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:pBdr><w:bottom w:val="single" ` +
        `w:sz="18" w:space="12" w:color="${NAVY}"/></w:pBdr><w:spacing ` +
        `w:after="480"/></w:pPr><w:rPr><w:color w:val="${BLUE}"/><w:sz ` +
        `w:val="28"/><w:szCs w:val="28"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'CoverKicker',
      'Cover Kicker',
      `<w:basedOn w:val="Normal"/><w:rPr><w:b/><w:caps/><w:color ` +
        `w:val="${BLUE}"/><w:spacing w:val="20"/><w:sz w:val="24"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'CoverLabel',
      'Cover Label',
      `<w:basedOn w:val="Normal"/><w:pPr><w:spacing w:before="40" ` +
        `w:after="40"/></w:pPr><w:rPr><w:b/><w:color w:val="${NAVY}"/><w:sz ` +
        `w:val="22"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'CoverValue',
      'Cover Value',
      `<w:basedOn w:val="Normal"/><w:pPr><w:spacing w:before="40" ` +
        `w:after="40"/></w:pPr><w:rPr><w:sz w:val="22"/></w:rPr>`,
    ),
    heading(1, 34, NAVY, 360),
    heading(2, 27, NAVY, 300),
    heading(3, 23, BLUE, 220),
    heading(4, 20, NAVY, 160),
    style(
      'paragraph',
      'ListBullet',
      'List Bullet',
      // Why a numbering of its own: a bullet per paragraph (one reference, one link each).
      '<w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr>' +
        '<w:spacing w:after="60"/><w:ind w:left="360" w:hanging="360"/></w:pPr>',
    ),
    style(
      'paragraph',
      'ListNumber',
      'List Number',
      '<w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:spacing w:after="60"/></w:pPr>',
    ),
    style(
      'paragraph',
      'Code',
      'Code',
      `<w:basedOn w:val="Normal"/><w:link w:val="CodeChar"/><w:qFormat/><w:pPr><w:shd ` +
        `w:val="clear" w:color="auto" w:fill="F3F4F6"/><w:spacing w:after="0" ` +
        `w:line="240" w:lineRule="auto"/><w:ind w:left="113" ` +
        `w:right="113"/></w:pPr><w:rPr>${font('Consolas')}<w:sz w:val="17"/><w:szCs ` +
        `w:val="17"/></w:rPr>`,
    ),
    style(
      'character',
      'CodeChar',
      'Code Char',
      `<w:basedOn w:val="DefaultParagraphFont"/><w:link ` +
        `w:val="Code"/><w:rPr>${font('Consolas')}<w:shd w:val="clear" w:color="auto" ` +
        `w:fill="F3F4F6"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'Caption',
      'Caption',
      `<w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/><w:pPr><w:jc ` +
        `w:val="center"/><w:spacing w:before="60" ` +
        `w:after="240"/></w:pPr><w:rPr><w:i/><w:iCs/><w:color w:val="${BLUE}"/><w:sz ` +
        `w:val="18"/><w:szCs w:val="18"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'Quote',
      'Quote',
      `<w:basedOn w:val="Normal"/><w:qFormat/><w:pPr><w:pBdr><w:left w:val="single" ` +
        `w:sz="18" w:space="8" w:color="A5B7D2"/></w:pBdr><w:ind ` +
        `w:left="397"/></w:pPr><w:rPr><w:i/><w:iCs/><w:color w:val="${BLUE}"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'TableText',
      'Table Text',
      '<w:basedOn w:val="Normal"/><w:pPr><w:spacing w:after="0" w:line="240" ' +
        'w:lineRule="auto"/></w:pPr><w:rPr><w:sz w:val="18"/><w:szCs w:val="18"/></w:rPr>',
    ),
    style(
      'paragraph',
      'TableStrong',
      'Table Label',
      `<w:basedOn w:val="TableText"/><w:rPr><w:b/><w:color w:val="${NAVY}"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'TableNumber',
      'Table Number',
      '<w:basedOn w:val="TableText"/><w:pPr><w:jc w:val="right"/></w:pPr>',
    ),
    style(
      'paragraph',
      'TableNumberStrong',
      'Table Number Label',
      `<w:basedOn w:val="TableNumber"/><w:rPr><w:b/><w:color w:val="${NAVY}"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'TableCode',
      'Table Code',
      `<w:basedOn w:val="TableText"/><w:rPr>${font('Consolas')}<w:sz w:val="16"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'TableHeading',
      'Table Heading',
      '<w:basedOn w:val="TableText"/><w:pPr><w:keepNext/></w:pPr><w:rPr><w:b/><w:color w:val="FFFFFF"/></w:rPr>',
    ),
    style(
      'table',
      'TableGrid',
      'Table Grid',
      `<w:basedOn ` +
        (`w:val="TableNormal"/><w:tblPr><w:tblBorders>${grid('top')}${grid('left')}${grid('bottom')}${grid('right')}${grid('insideH')}${grid('insideV')}</w:tblBorders><w:tblCellMar><w:top ` +
          `` +
          ``) +
        `w:w="50" w:type="dxa"/><w:left w:w="90" w:type="dxa"/><w:bottom w:w="50" ` +
        `w:type="dxa"/><w:right w:w="90" w:type="dxa"/></w:tblCellMar></w:tblPr>`,
    ),
    style(
      'character',
      'Hyperlink',
      'Hyperlink',
      `<w:basedOn w:val="DefaultParagraphFont"/><w:rPr><w:color w:val="${BLUE}"/><w:u w:val="single"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'TOCHeading',
      'TOC Heading',
      `<w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:pPr><w:spacing ` +
        `w:after="240"/></w:pPr><w:rPr><w:b/><w:color w:val="${NAVY}"/><w:sz ` +
        `w:val="34"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'TOC1',
      'toc 1',
      `<w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:pPr><w:spacing ` +
        `w:before="120" w:after="40"/></w:pPr><w:rPr><w:b/><w:color ` +
        `w:val="${NAVY}"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'TOC2',
      'toc 2',
      '<w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:pPr><w:spacing ' +
        'w:after="20"/><w:ind w:left="284"/></w:pPr>',
    ),
    style(
      'paragraph',
      'Header',
      'header',
      `<w:basedOn w:val="Normal"/><w:pPr><w:tabs><w:tab w:val="right" ` +
        `w:pos="9072"/></w:tabs><w:spacing w:after="0"/></w:pPr><w:rPr><w:color ` +
        `w:val="${BLUE}"/><w:sz w:val="16"/></w:rPr>`,
    ),
    style(
      'paragraph',
      'Footer',
      'footer',
      `<w:basedOn w:val="Normal"/><w:pPr><w:pBdr><w:top w:val="single" w:sz="4" ` +
        `w:space="4" w:color="BFC5CC"/></w:pBdr><w:tabs><w:tab w:val="right" ` +
        `w:pos="9072"/></w:tabs><w:spacing w:after="0"/></w:pPr><w:rPr><w:color ` +
        `w:val="${BLUE}"/><w:sz w:val="16"/></w:rPr>`,
    ),
  ];
  const defaults =
    `<w:docDefaults><w:rPrDefault><w:rPr>${font('Calibri')}<w:color ` +
    `w:val="1A1A1A"/><w:sz w:val="21"/><w:szCs w:val="21"/><w:lang ` +
    `w:val="en-GB"/></w:rPr></w:rPrDefault><w:pPrDefault/></w:docDefaults>`;
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:styles ` +
    `xmlns:w="${W}">${defaults}${styles.join('')}</w:styles>`
  );
}

const field = (code: string) =>
  `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText ` +
  `xml:space="preserve"> ${code} </w:instrText></w:r><w:r><w:fldChar ` +
  `w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar ` +
  `w:fldCharType="end"/></w:r>`;

export function exampleTemplateParts(): Array<[string, string]> {
  const header =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:hdr ` +
    `xmlns:w="${W}">${paragraph({ style: 'Header' }, run('{headerText}') + run('\t{title}'))}</w:hdr>`;
  const footer =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:ftr ` +
    `xmlns:w="${W}">${paragraph({ style: 'Footer' }, run('{footerText}\t{label.page} ') + field('PAGE') + run(' {label.of} ') + field('NUMPAGES'))}</w:ftr>`;
  const settings =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:settings ` +
    `xmlns:w="${W}"><w:defaultTabStop w:val="708"/><w:characterSpacingControl ` +
    `w:val="doNotCompress"/><w:compat><w:compatSetting w:name="compatibilityMode" ` +
    `w:uri="http://schemas.microsoft.com/office/word" ` +
    `w:val="15"/></w:compat></w:settings>`;
  const rels =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships ` +
    `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship ` +
    `Id="rIdStyles" ` +
    `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" ` +
    `Target="styles.xml"/><Relationship Id="rIdSettings" ` +
    `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" ` +
    `Target="settings.xml"/><Relationship Id="rIdHeader" ` +
    `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" ` +
    `Target="header1.xml"/><Relationship Id="rIdFooter" ` +
    `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" ` +
    `Target="footer1.xml"/><Relationship Id="rIdNumbering" ` +
    `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" ` +
    `Target="numbering.xml"/></Relationships>`;
  const numbering =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:numbering xmlns:w="${W}">` +
    `<w:abstractNum w:abstractNumId="1"><w:multiLevelType w:val="singleLevel"/><w:lvl w:ilvl="0">` +
    `<w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="\u2022"/><w:lvlJc w:val="left"/>` +
    `<w:pPr><w:ind w:left="360" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum>` +
    `<w:num w:numId="1"><w:abstractNumId w:val="1"/></w:num></w:numbering>`;
  const rootRels =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships ` +
    `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship ` +
    `Id="rId1" ` +
    `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" ` +
    `Target="word/document.xml"/></Relationships>`;
  const main = 'application/vnd.openxmlformats-officedocument.wordprocessingml';
  const types =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types ` +
    `xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default ` +
    `Extension="rels" ` +
    `ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default ` +
    `Extension="xml" ContentType="application/xml"/><Override ` +
    `PartName="/word/document.xml" ContentType="${main}.document.main+xml"/><Override ` +
    `PartName="/word/styles.xml" ContentType="${main}.styles+xml"/><Override ` +
    `PartName="/word/settings.xml" ContentType="${main}.settings+xml"/><Override ` +
    `PartName="/word/header1.xml" ContentType="${main}.header+xml"/><Override ` +
    `PartName="/word/footer1.xml" ContentType="${main}.footer+xml"/><Override ` +
    `PartName="/word/numbering.xml" ContentType="${main}.numbering+xml"/></Types>`;
  return [
    ['[Content_Types].xml', types],
    ['_rels/.rels', rootRels],
    ['word/document.xml', documentXml()],
    ['word/styles.xml', stylesXml()],
    ['word/settings.xml', settings],
    ['word/_rels/document.xml.rels', rels],
    ['word/header1.xml', header],
    ['word/footer1.xml', footer],
    ['word/numbering.xml', numbering],
  ];
}
