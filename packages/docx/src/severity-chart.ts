import { existsSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';
import type { ResolvedReportStyle, Severity } from '@service/report-model';
import type { ReportLocale } from './messages/report-locale.ts';
import { SEVERITIES_DESCENDING } from './report-labels.ts';
import { escapeXml } from './xml-text.ts';

/**
 * The severity overview as a picture: one horizontal bar per severity in the style's severity
 * colours, with the count at its end and the total underneath. Drawn as SVG and rasterised with
 * resvg at twice the size it is shown, so it stays sharp in print.
 */

/** The size the chart is shown at in the document, in pixels at 96 per inch. */
export const SEVERITY_CHART_SIZE = { width: 600, height: 250 } as const;
const SCALE = 2;

/**
 * Font files resvg draws the labels with. Why explicit files: resvg's own system scan differs
 * between machines, and a CI runner without the expected fonts would draw no text at all.
 * Carlito is metric-compatible with Calibri (the default style's font); the others are fallbacks.
 */
const FONT_CANDIDATES = [
  '/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf',
  '/usr/share/fonts/truetype/crosextra/Carlito-Bold.ttf',
  '/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf',
  '/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
  '/usr/share/fonts/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf',
  '/Library/Fonts/Arial.ttf',
  'C:\\Windows\\Fonts\\arial.ttf',
];
let fontFiles: string[] | null = null;

export function chartFontFiles(): string[] {
  fontFiles ??= FONT_CANDIDATES.filter((f) => existsSync(f));
  return fontFiles;
}

export function severityChartSvg(
  counts: Record<Severity, number>,
  style: ResolvedReportStyle,
  locale: ReportLocale,
): string {
  const { width, height } = SEVERITY_CHART_SIZE;
  const family =
    `'${style.fonts.body.replace(/'/g, '')}', Carlito, 'Liberation Sans', 'DejaVu ` + `Sans', Arial, sans-serif`;
  const max = Math.max(1, ...SEVERITIES_DESCENDING.map((s) => counts[s]));
  const total = SEVERITIES_DESCENDING.reduce((n, s) => n + counts[s], 0);
  const labelWidth = 120;
  const barLeft = labelWidth + 10;
  const barMax = width - barLeft - 60;
  const rowHeight = 36;
  const top = 14;
  const parts: string[] = [];
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#FFFFFF"/>`);
  SEVERITIES_DESCENDING.forEach((s, i) => {
    const y = top + i * rowHeight;
    const w = counts[s] === 0 ? 0 : Math.max(4, Math.round((counts[s] / max) * barMax));
    parts.push(
      `<text x="${labelWidth}" y="${y + 19}" text-anchor="end" font-size="15" ` +
        `fill="${style.colors.text}">${escapeXml(locale.severity(s))}</text>`,
    );
    parts.push(`<rect x="${barLeft}" y="${y + 2}" width="${barMax}" height="24" rx="3" fill="#F1F3F5"/>`);
    if (w > 0)
      parts.push(
        `<rect x="${barLeft}" y="${y + 2}" width="${w}" height="24" rx="3" fill="${style.severityColors[s]}"/>`,
      );
    parts.push(
      `<text x="${barLeft + w + 8}" y="${y + 20}" font-size="16" font-weight="bold" ` +
        `fill="${style.colors.text}">${locale.integer(counts[s])}</text>`,
    );
  });
  const footY = top + SEVERITIES_DESCENDING.length * rowHeight + 22;
  parts.push(
    `<line x1="${barLeft}" y1="${footY - 18}" x2="${barLeft + barMax}" ` +
      `y2="${footY - 18}" stroke="#CED4DA" stroke-width="1"/>`,
  );
  parts.push(
    `<text x="${barLeft}" y="${footY}" font-size="14" ` +
      `fill="${style.colors.secondary}">${escapeXml(locale.plural('findingsInTotal', total))}</text>`,
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" ` +
    `font-family="${escapeXml(family)}">${parts.join('')}</svg>`
  );
}

/** The chart as PNG bytes, `SEVERITY_CHART_SIZE` times two. */
export function renderSeverityChartPng(
  counts: Record<Severity, number>,
  style: ResolvedReportStyle,
  locale: ReportLocale,
): Uint8Array {
  const files = chartFontFiles();
  const resvg = new Resvg(severityChartSvg(counts, style, locale), {
    fitTo: { mode: 'zoom', value: SCALE },
    font:
      files.length > 0
        ? { fontFiles: files, loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' }
        : { loadSystemFonts: true },
  });
  return new Uint8Array(resvg.render().asPng());
}
