import type { ReportDocumentFinding, Severity } from '@service/report-model';
import { countSeverities, primaryCvss, SEVERITIES_DESCENDING } from '../report-labels.ts';
import { BAR_CHART_SIZE } from '../bar-chart.ts';
import { renderSeverityChartPng } from '../severity-chart.ts';
import { readEvidenceImage, isEvidenceImage } from '../evidence-images.ts';
import { fitColumnWidths } from '../wordml/column-widths.ts';
import { styledTable, TABLE_CELL_MARGINS } from '../wordml/markdown-to-wordml.ts';
import { bookmark, drawing, internalLink, paragraph, run } from '../wordml/wordml.ts';
import { docxColour, textColourOn } from './colours.ts';
import { findingBookmark } from './finding-section.ts';
import type { LayoutContext } from './layout-context.ts';
import { STYLE } from './layout-styles.ts';

/** A chart of the overviews, centred, with its title and a description of its bars; nothing if it cannot be read. */
export function chartParagraph(
  png: Uint8Array,
  name: string,
  title: string,
  description: string,
  ctx: LayoutContext,
): string {
  const chart = readEvidenceImage(png);
  if (!isEvidenceImage(chart)) return '';
  return paragraph(
    { align: 'center', spacing: { after: 120 } },
    drawing(
      ctx.parts.image(name, chart),
      ctx.parts.drawingId(),
      BAR_CHART_SIZE.width,
      BAR_CHART_SIZE.height,
      title,
      description,
    ),
  );
}

export const OVERVIEW_BOOKMARK = 'findings_overview';
export const SUMMARY_TABLE_BOOKMARK = 'findings_summary';

/** The severity chart, the counts per severity, and one summary row per finding. */
export function findingsOverview(findings: readonly ReportDocumentFinding[], ctx: LayoutContext): string {
  const { locale } = ctx;
  const out: string[] = [
    paragraph(
      { style: 'Heading1', pageBreakBefore: true },
      bookmark(ctx.parts.bookmarkId(), OVERVIEW_BOOKMARK, run(locale.text('findingsOverview'))),
    ),
  ];
  if (findings.length === 0) {
    out.push(paragraph(null, run(locale.text('noFindings'))));
    return out.join('');
  }
  const counts = countSeverities(findings);
  out.push(
    chartParagraph(
      renderSeverityChartPng(counts, ctx.style, locale),
      'severity-chart',
      locale.text('findingsBySeverity'),
      SEVERITIES_DESCENDING.map((s) => `${locale.severity(s)}: ${counts[s]}`).join(', '),
      ctx,
    ),
  );
  out.push(countsTable(counts, findings.length, ctx));
  out.push(
    paragraph(
      { style: 'Heading2' },
      bookmark(ctx.parts.bookmarkId(), SUMMARY_TABLE_BOOKMARK, run(locale.text('summaryOfFindings'))),
    ),
  );
  const texts = findings.map((f, i) => {
    const cvss = primaryCvss(f.cvss);
    return [
      String(i + 1),
      f.title,
      locale.severity(f.severity),
      cvss ? locale.score(cvss.score) : '',
      locale.findingStatus(f.status),
    ];
  });
  const rows = findings.map((f, i) => {
    const fill = docxColour(ctx.style.severityColors[f.severity]);
    const [number, title, severity, cvss, status] = texts[i]!;
    return [
      run(number!),
      internalLink(findingBookmark(i + 1), run(title!)),
      { runs: run(severity!, { bold: true, color: textColourOn(fill) }), fill },
      run(cvss!),
      run(status!),
    ];
  });
  const headers = [
    locale.text('number'),
    locale.text('finding'),
    locale.fieldLabel('severity'),
    locale.fieldLabel('cvss'),
    locale.fieldLabel('status'),
  ];
  out.push(
    styledTable(
      {
        header: headers.map((h) => run(h)),
        rows,
        widths: fitColumnWidths(
          headers.map((header, c) => ({ header, cells: texts.map((t) => t[c]!) })),
          ctx.textWidth,
          { fontSize: 18, cellMargins: TABLE_CELL_MARGINS },
        ),
        align: ['right', null, 'center', 'center', null],
      },
      ctx,
    ),
  );
  return out.join('');
}

function countsTable(counts: Record<Severity, number>, total: number, ctx: LayoutContext): string {
  const { locale } = ctx;
  const rows: Array<
    Array<string | { runs: string; fill?: string; style?: string | null; align?: 'left' | 'center' | 'right' }>
  > = SEVERITIES_DESCENDING.map((s) => {
    const fill = docxColour(ctx.style.severityColors[s]);
    return [
      { runs: run(locale.severity(s), { bold: true, color: textColourOn(fill) }), fill },
      run(locale.integer(counts[s])),
    ];
  });
  rows.push([{ runs: run(locale.text('total')), style: STYLE.fieldLabel }, run(locale.integer(total), { bold: true })]);
  const headers = [locale.fieldLabel('severity'), locale.text('findings')];
  const widths = fitColumnWidths(
    [
      {
        header: headers[0],
        labels: [...SEVERITIES_DESCENDING.map((s) => locale.severity(s)), locale.text('total')],
        cells: [],
      },
      { header: headers[1], cells: [locale.integer(total)] },
    ],
    Math.round(ctx.textWidth * 0.4),
    { fontSize: 18, cellMargins: TABLE_CELL_MARGINS },
  );
  return (
    styledTable({ header: headers.map((h) => run(h)), rows, widths, align: [null, 'right'], striped: false }, ctx) +
    paragraph({ spacing: { before: 0, after: 120 } }, '')
  );
}
