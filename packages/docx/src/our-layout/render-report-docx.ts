import {
  AlignmentType,
  BorderStyle,
  Document,
  Footer,
  Header,
  Packer,
  PageNumber,
  Paragraph,
  TableOfContents,
  TabStopType,
  TextRun,
} from 'docx';
import { linkParts, type ReportDocument, type ReportMarkdownFieldName, type TabPlacement } from '@service/report-model';
import { reportLocale, type ReportLocale } from '../messages/report-locale.ts';
import { collectEvidenceRefs, loadEvidenceImages } from '../evidence-images.ts';
import { planEvidence } from '../evidence-plan.ts';
import { isHyperlinkTarget, parseMarkdownBlocks, type Block } from '../markdown-blocks.ts';
import type { RenderReportOptions } from '../render-options.ts';
import { figure, markdownToWordml } from '../wordml/markdown-to-wordml.ts';
import { PackageAdditions } from '../wordml/package-additions.ts';
import { bookmark, hyperlink, paragraph, run } from '../wordml/wordml.ts';
import { withXmlCharactersOnly } from '../xml-text.ts';
import { readZip, writeZip } from '../zip-archive.ts';
import { coverPage } from './cover-page.ts';
import {
  EVIDENCE_APPENDIX_BOOKMARK,
  evidenceAppendix,
  findingBookmark,
  findingMarkdown,
  findingSection,
  type FindingMarkdown,
} from './finding-section.ts';
import { findingsOverview, OVERVIEW_BOOKMARK, SUMMARY_TABLE_BOOKMARK } from './findings-overview.ts';
import { LAYOUT_WORD_STYLES, tableLookOf, type LayoutContext } from './layout-context.ts';
import { layoutStyles, STYLE } from './layout-styles.ts';
import { pageGeometry } from './page-geometry.ts';
import { REPORT_SECTIONS, tabLayout } from './report-field-layout.ts';
import { RETEST_BOOKMARK, retestFindingSection, retestOverview } from './retest-section.ts';

/** Bookmark of a report field's section: `report_summary`. */
const sectionBookmark = (name: ReportMarkdownFieldName) => `report_${name}`;

const BODY_MARKER = 'SERVICE-REPORT-BODY-8f2c1e';

/**
 * A report in our own layout: cover page, table of contents, summary, the tabs in order, the
 * findings overview (severity chart, counts, summary table), every finding, and the report's
 * links; headers and footers with "Page X of Y". Everything visual comes from `options.style`.
 *
 * How: the docx library writes the package (styles, settings, headers and footers with their page
 * fields, the cover page and the table of contents); the body, which holds nearly all of the
 * report, is written as WordprocessingML strings and put in place of a marker paragraph. Why: an
 * object per run and cell made a 500-finding report take 6.7 s and 1 GB; strings take a fraction.
 */
export async function renderReportDocx(report: ReportDocument, options: RenderReportOptions): Promise<Uint8Array> {
  const doc = withXmlCharactersOnly(report);
  const sections = REPORT_SECTIONS.map((name) => ({ name, blocks: parseMarkdownBlocks(doc[name]) }));
  const tabs = doc.tabs.map((t) => parseMarkdownBlocks(tabLayout(t).text));
  const findings: FindingMarkdown[] = doc.findings.map((f) => findingMarkdown(f, parseMarkdownBlocks));
  const retestNotes: Block[][] = doc.findings.map((f) => (f.retest ? parseMarkdownBlocks(f.retest.notes) : []));
  const allMarkdown = function* (): Generator<Block[]> {
    for (const s of sections) yield s.blocks;
    yield* tabs;
    for (const f of findings) yield* Object.values(f);
    yield* retestNotes;
  };
  const style = withXmlCharactersOnly(options.style);
  const geometry = pageGeometry(style.pageSize);
  const images = await loadEvidenceImages(
    collectEvidenceRefs(doc, allMarkdown()),
    options.loadImage,
    geometry.printBox,
    options.scaleImages ?? true,
  );
  const locale = reportLocale(doc.language);
  const evidence = planEvidence(doc.findings, style.evidenceMode, locale);
  const skeleton = await packSkeleton(doc, options, style, geometry, locale, evidence.appendix.length > 0);
  const files: Map<string, Uint8Array | string> = readZip(skeleton, {
    maxEntries: 1000,
    maxEntryBytes: 64 * 1024 * 1024,
    maxTotalBytes: 256 * 1024 * 1024,
  });
  const numbering = files.get('word/numbering.xml') as Uint8Array | undefined;
  const ctx: LayoutContext = {
    style,
    geometry,
    styles: LAYOUT_WORD_STYLES,
    monoFont: style.fonts.mono,
    images,
    maxImage: geometry.maxImage,
    textWidth: geometry.textWidth,
    parts: new PackageAdditions(numbering ? new TextDecoder().decode(numbering) : null),
    figures: { count: 0 },
    locale,
    tableFontSize: 18,
    tableLook: tableLookOf(style),
  };

  // Why bytes as we go: the body of a 5,000-finding report is tens of megabytes of XML; keeping it
  // as UTF-8 chunks instead of one joined UTF-16 string roughly halves the peak memory.
  const encoder = new TextEncoder();
  const body = { chunks: [] as Uint8Array[], push: (xml: string) => void body.chunks.push(encoder.encode(xml)) };
  const heading1 = (name: string, text: string) =>
    paragraph({ style: 'Heading1', pageBreakBefore: true }, bookmark(ctx.parts.bookmarkId(), name, run(text)));
  for (const { name, blocks } of sections) {
    if (blocks.length === 0) continue;
    body.push(heading1(sectionBookmark(name), locale.reportFieldLabel(name)));
    body.push(markdownToWordml(blocks, ctx, { baseHeading: 2 }));
  }
  // Why by placement: sections before the findings (summary, scope) open the report; appendices close it.
  const writeTabs = (placement: TabPlacement) =>
    doc.tabs.forEach((tab, i) => {
      if (tab.placement !== placement) return;
      body.push(heading1(`tab_${i + 1}`, tabLayout(tab).heading));
      const shown = new Set<string>();
      body.push(markdownToWordml(tabs[i]!, ctx, { baseHeading: 2, shown }));
      for (const e of tab.evidence)
        if (!shown.has(e.sha256)) body.push(figure(e.sha256, e.caption, e.fileName, ctx, shown));
    });
  writeTabs('before');
  if (doc.retest) body.push(retestOverview(doc, ctx));
  body.push(findingsOverview(doc.findings, ctx));
  if (doc.findings.length > 0) {
    body.push(heading1('findings', locale.text('findings')));
    doc.findings.forEach((f, i) => {
      body.push(findingSection(f, i + 1, findings[i]!, ctx, evidence.findings[i]));
      if (doc.retest) body.push(retestFindingSection(f, retestNotes[i]!, ctx));
      // Why: the blocks of a finding already written are not needed again; let them go.
      findings[i] = findingMarkdown(f, () => []);
      retestNotes[i] = [];
    });
  }
  writeTabs('after');
  // Why here: the whole scanner evidence is the last appendix, after the report's own, before the links.
  if (evidence.appendix.length > 0) body.push(evidenceAppendix(evidence.appendix, ctx));
  if (doc.links.length > 0) {
    body.push(
      paragraph({ style: 'Heading1' }, bookmark(ctx.parts.bookmarkId(), 'report_links', run(locale.text('links')))),
    );
    const numId = ctx.parts.list(false, 1);
    for (const l of doc.links) {
      const { text, target } = linkParts(l);
      const title = run(text, { style: STYLE.hyperlink });
      body.push(
        paragraph(
          { style: 'ListParagraph', numbering: { numId, level: 0 } },
          (isHyperlinkTarget(target) ? hyperlink(ctx.parts.hyperlink(target), title) : title) + run(` (${target})`),
        ),
      );
    }
  }

  const documentXml = new TextDecoder().decode(files.get('word/document.xml') as Uint8Array);
  const marker = new RegExp(`<w:p>(?:(?!<w:p>).)*?${BODY_MARKER}.*?</w:p>`);
  const at = documentXml.search(marker);
  if (at < 0) throw new Error('the layout skeleton lost its body marker');
  const markerXml = marker.exec(documentXml)![0];
  files.set(
    'word/document.xml',
    Buffer.concat([
      encoder.encode(documentXml.slice(0, at)),
      ...body.chunks,
      encoder.encode(documentXml.slice(at + markerXml.length)),
    ]),
  );
  body.chunks.length = 0;
  ctx.parts.applyTo(files);
  return writeZip(orderParts(files));
}

/** `[Content_Types].xml` first: some readers look for it there. */
function orderParts(files: Map<string, Uint8Array | string>): Array<[string, Uint8Array | string]> {
  const types = files.get('[Content_Types].xml')!;
  return [['[Content_Types].xml', types], ...[...files].filter(([name]) => name !== '[Content_Types].xml')];
}

/** The package the docx library writes: styles, headers, footers, cover page, contents, and the body marker. */
async function packSkeleton(
  doc: ReportDocument,
  options: RenderReportOptions,
  style: RenderReportOptions['style'],
  g: ReturnType<typeof pageGeometry>,
  locale: ReportLocale,
  evidenceAppendix: boolean,
): Promise<Uint8Array> {
  const ctx = { style, geometry: g, locale };
  // Why cached entries: LibreOffice (and so every PDF made from the file) shows a table of
  // contents as written, without updating it; Word updates it, with page numbers, on opening.
  const entries: Array<{ title: string; level: number; href: string }> = [];
  for (const name of REPORT_SECTIONS)
    if (doc[name].trim() !== '')
      entries.push({ title: locale.reportFieldLabel(name), level: 1, href: sectionBookmark(name) });
  const tabEntries = (placement: TabPlacement) =>
    doc.tabs.forEach((t, i) => {
      if (t.placement === placement) entries.push({ title: tabLayout(t).heading, level: 1, href: `tab_${i + 1}` });
    });
  tabEntries('before');
  if (doc.retest) entries.push({ title: locale.text('retestResults'), level: 1, href: RETEST_BOOKMARK });
  entries.push({ title: locale.text('findingsOverview'), level: 1, href: OVERVIEW_BOOKMARK });
  if (doc.findings.length > 0) {
    entries.push({ title: locale.text('summaryOfFindings'), level: 2, href: SUMMARY_TABLE_BOOKMARK });
    entries.push({ title: locale.text('findings'), level: 1, href: 'findings' });
    for (const [i, f] of doc.findings.entries())
      entries.push({ title: `${i + 1}. ${f.title}`, level: 2, href: findingBookmark(i + 1) });
  }
  tabEntries('after');
  if (evidenceAppendix)
    entries.push({ title: locale.text('evidenceAppendix'), level: 1, href: EVIDENCE_APPENDIX_BOOKMARK });
  if (doc.links.length > 0) entries.push({ title: locale.text('links'), level: 1, href: 'report_links' });

  const rightTab = [{ type: TabStopType.RIGHT, position: g.textWidth }];
  const document = new Document({
    title: doc.title,
    subject: `${doc.client.name} – ${doc.project.name}`,
    creator: 'service',
    // Why: Word then refreshes the contents (with page numbers) and every field when it opens the file.
    features: { updateFields: true },
    styles: layoutStyles(style),
    sections: [
      {
        properties: { titlePage: true, page: { size: { width: g.width, height: g.height }, margin: g.margin } },
        headers: {
          default: new Header({
            children: [
              new Paragraph({
                style: STYLE.headerFooter,
                tabStops: rightTab,
                children: [new TextRun(style.headerText), new TextRun({ children: ['\t', doc.title] })],
              }),
            ],
          }),
          first: new Header({ children: [new Paragraph({ style: STYLE.headerFooter })] }),
        },
        footers: {
          default: new Footer({
            children: [
              new Paragraph({
                style: STYLE.headerFooter,
                tabStops: rightTab,
                border: { top: { style: BorderStyle.SINGLE, size: 4, color: 'BFC5CC', space: 4 } },
                children: [
                  new TextRun(style.footerText),
                  new TextRun({
                    children: [
                      `\t${locale.text('page')} `,
                      PageNumber.CURRENT,
                      ` ${locale.text('of')} `,
                      PageNumber.TOTAL_PAGES,
                    ],
                  }),
                ],
              }),
            ],
          }),
          first: new Footer({
            children: [
              new Paragraph({
                style: STYLE.headerFooter,
                alignment: AlignmentType.CENTER,
                children: [new TextRun(style.footerText)],
              }),
            ],
          }),
        },
        children: [
          ...coverPage(doc, ctx, options.logo, options.now ?? new Date()),
          new Paragraph({ style: STYLE.contentsHeading, pageBreakBefore: true, text: locale.text('contents') }),
          new TableOfContents(locale.text('contents'), {
            hyperlink: true,
            headingStyleRange: '1-2',
            cachedEntries: entries,
          }),
          new Paragraph(BODY_MARKER),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}
