import { Resvg } from '@resvg/resvg-js';
import type { ResolvedReportStyle, RetestStatus } from '@service/report-model';
import type { ReportLocale } from './messages/report-locale.ts';
import { retestStatusKey } from './messages/report-messages.ts';
import { chartFontFiles } from './severity-chart.ts';
import { escapeXml } from './xml-text.ts';

/**
 * The retest overview as a picture: how many findings are resolved against those still open (in
 * part, entirely, or first seen in the retest), and those not retested, one bar each in the
 * retest colours, with the count at its end and "n of m findings resolved, k open" underneath.
 * Drawn like the severity chart (SVG rasterised by resvg at twice its size).
 */

/** The order the chart, the summary and the template's `retestStatuses` list the statuses in. */
export const RETEST_STATUS_ORDER: readonly RetestStatus[] = [
  'resolved',
  'partially_resolved',
  'unresolved',
  'new',
  'not_retested',
];

/** Colours of the retest statuses: green for resolved, amber for partly, red for open, purple for new, grey. */
export const RETEST_STATUS_COLOURS: Readonly<Record<RetestStatus, string>> = {
  resolved: '#2E7D32',
  partially_resolved: '#F9A825',
  unresolved: '#C62828',
  new: '#6A1B9A',
  not_retested: '#9E9E9E',
};

export const RETEST_CHART_SIZE = { width: 600, height: 250 } as const;
const SCALE = 2;

/** Findings resolved, still open (partly, entirely or new) and in all, for the chart's line and the templates. */
export function retestTotals(counts: Record<RetestStatus, number>): { resolved: number; open: number; total: number } {
  const total = RETEST_STATUS_ORDER.reduce((n, s) => n + counts[s], 0);
  return { resolved: counts.resolved, open: counts.partially_resolved + counts.unresolved + counts.new, total };
}

export function retestChartSvg(
  counts: Record<RetestStatus, number>,
  style: ResolvedReportStyle,
  locale: ReportLocale,
): string {
  const { width, height } = RETEST_CHART_SIZE;
  const family =
    `'${style.fonts.body.replace(/'/g, '')}', Carlito, 'Liberation Sans', 'DejaVu ` + `Sans', Arial, sans-serif`;
  const max = Math.max(1, ...RETEST_STATUS_ORDER.map((s) => counts[s]));
  const labelWidth = 150;
  const barLeft = labelWidth + 10;
  const barMax = width - barLeft - 60;
  const rowHeight = 36;
  const top = 14;
  const parts: string[] = [`<rect x="0" y="0" width="${width}" height="${height}" fill="#FFFFFF"/>`];
  RETEST_STATUS_ORDER.forEach((s, i) => {
    const y = top + i * rowHeight;
    const w = counts[s] === 0 ? 0 : Math.max(4, Math.round((counts[s] / max) * barMax));
    parts.push(
      `<text x="${labelWidth}" y="${y + 19}" text-anchor="end" font-size="15" ` +
        `fill="${style.colors.text}">${escapeXml(locale.text(retestStatusKey(s)))}</text>`,
      `<rect x="${barLeft}" y="${y + 2}" width="${barMax}" height="24" rx="3" fill="#F1F3F5"/>`,
    );
    if (w > 0)
      parts.push(
        `<rect x="${barLeft}" y="${y + 2}" width="${w}" height="24" rx="3" fill="${RETEST_STATUS_COLOURS[s]}"/>`,
      );
    parts.push(
      `<text x="${barLeft + w + 8}" y="${y + 20}" font-size="16" font-weight="bold" ` +
        `fill="${style.colors.text}">${locale.integer(counts[s])}</text>`,
    );
  });
  const { resolved, open, total } = retestTotals(counts);
  const footY = top + RETEST_STATUS_ORDER.length * rowHeight + 22;
  parts.push(
    `<line x1="${barLeft}" y1="${footY - 18}" x2="${barLeft + barMax}" y2="${footY - 18}" stroke="#CED4DA" stroke-width="1"/>`,
    `<text x="${barLeft}" y="${footY}" font-size="14" fill="${style.colors.secondary}">${escapeXml(
      locale.plural('findingsResolvedOf', total, { resolved: locale.integer(resolved), open: locale.integer(open) }),
    )}</text>`,
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `font-family="${escapeXml(family)}">${parts.join('')}</svg>`
  );
}

/** The chart as PNG bytes, `RETEST_CHART_SIZE` times two. */
export function renderRetestChartPng(
  counts: Record<RetestStatus, number>,
  style: ResolvedReportStyle,
  locale: ReportLocale,
): Uint8Array {
  const files = chartFontFiles();
  const resvg = new Resvg(retestChartSvg(counts, style, locale), {
    fitTo: { mode: 'zoom', value: SCALE },
    font:
      files.length > 0
        ? { fontFiles: files, loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' }
        : { loadSystemFonts: true },
  });
  return new Uint8Array(resvg.render().asPng());
}
