import type { ReportDocumentFinding, Severity } from '@service/report-model';
import {
  countSeverities,
  findingStatusLabel,
  formatScore,
  primaryCvss,
  SEVERITIES_DESCENDING,
  SEVERITY_LABELS,
} from '../report-labels.ts';
import { renderSeverityChartPng, SEVERITY_CHART_SIZE } from '../severity-chart.ts';
import { readEvidenceImage, isEvidenceImage } from '../evidence-images.ts';
import { columnWidths, styledTable } from '../wordml/markdown-to-wordml.ts';
import { bookmark, drawing, internalLink, paragraph, run } from '../wordml/wordml.ts';
import { docxColour, textColourOn } from './colours.ts';
import { findingBookmark } from './finding-section.ts';
import type { LayoutContext } from './layout-context.ts';
import { STYLE } from './layout-styles.ts';

export const OVERVIEW_BOOKMARK = 'findings_overview';
export const SUMMARY_TABLE_BOOKMARK = 'findings_summary';

/** The severity chart, the counts per severity, and one summary row per finding. */
export function findingsOverview(findings: readonly ReportDocumentFinding[], ctx: LayoutContext): string {
  const out: string[] = [
    paragraph(
      { style: 'Heading1', pageBreakBefore: true },
      bookmark(ctx.parts.bookmarkId(), OVERVIEW_BOOKMARK, run('Findings overview')),
    ),
  ];
  if (findings.length === 0) {
    out.push(paragraph(null, run('No findings were identified during this assessment.')));
    return out.join('');
  }
  const counts = countSeverities(findings);
  const chart = readEvidenceImage(renderSeverityChartPng(counts, ctx.style));
  if (isEvidenceImage(chart)) {
    const description = SEVERITIES_DESCENDING.map((s) => `${SEVERITY_LABELS[s]}: ${counts[s]}`).join(', ');
    out.push(
      paragraph(
        { align: 'center', spacing: { after: 120 } },
        drawing(
          ctx.parts.image('severity-chart', chart),
          ctx.parts.drawingId(),
          SEVERITY_CHART_SIZE.width,
          SEVERITY_CHART_SIZE.height,
          'Findings by severity',
          description,
        ),
      ),
    );
  }
  out.push(countsTable(counts, findings.length, ctx));
  out.push(
    paragraph(
      { style: 'Heading2' },
      bookmark(ctx.parts.bookmarkId(), SUMMARY_TABLE_BOOKMARK, run('Summary of findings')),
    ),
  );
  const rows = findings.map((f, i) => {
    const fill = docxColour(ctx.style.severityColors[f.severity]);
    const cvss = primaryCvss(f.cvss);
    return [
      run(String(i + 1)),
      internalLink(findingBookmark(i + 1), run(f.title)),
      { runs: run(SEVERITY_LABELS[f.severity], { bold: true, color: textColourOn(fill) }), fill },
      run(cvss ? formatScore(cvss.score) : ''),
      run(findingStatusLabel(f.status)),
    ];
  });
  const header = ['#', 'Finding', 'Severity', 'CVSS', 'Status'].map((h) => run(h));
  out.push(
    styledTable(
      {
        header,
        rows,
        widths: columnWidths([6, 56, 15, 9, 14], ctx.textWidth, 500),
        align: ['right', null, 'center', 'center', null],
      },
      ctx,
    ),
  );
  return out.join('');
}

function countsTable(counts: Record<Severity, number>, total: number, ctx: LayoutContext): string {
  const rows: Array<
    Array<string | { runs: string; fill?: string; style?: string | null; align?: 'left' | 'center' | 'right' }>
  > = SEVERITIES_DESCENDING.map((s) => {
    const fill = docxColour(ctx.style.severityColors[s]);
    return [{ runs: run(SEVERITY_LABELS[s], { bold: true, color: textColourOn(fill) }), fill }, run(String(counts[s]))];
  });
  rows.push([{ runs: run('Total'), style: STYLE.fieldLabel }, run(String(total), { bold: true })]);
  const widths = columnWidths([3, 1], Math.round(ctx.textWidth * 0.4));
  return (
    styledTable(
      { header: [run('Severity'), run('Findings')], rows, widths, align: [null, 'right'], striped: false },
      ctx,
    ) + paragraph({ spacing: { before: 0, after: 120 } }, '')
  );
}
