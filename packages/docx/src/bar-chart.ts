import { existsSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';
import type { ResolvedReportStyle } from '@service/report-model';
import type { ReportLocale } from './messages/report-locale.ts';
import { escapeXml } from './xml-text.ts';

/**
 * A horizontal bar chart as the documents show their overviews (findings by severity, retest
 * results): one bar per row in its colour, the count at its end and one line underneath. Drawn as
 * SVG and rasterised with resvg at twice the size it is shown, so it stays sharp in print.
 */

/** The size a chart is shown at in the document, in pixels at 96 per inch. */
export const BAR_CHART_SIZE = { width: 600, height: 250 } as const;
const SCALE = 2;

export interface BarChartRow {
  label: string;
  count: number;
  /** `#RRGGBB` */
  colour: string;
}

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

export function barChartSvg(
  rows: readonly BarChartRow[],
  footer: string,
  style: ResolvedReportStyle,
  locale: ReportLocale,
  labelWidth: number,
): string {
  const { width, height } = BAR_CHART_SIZE;
  const family = `'${style.fonts.body.replace(/'/g, '')}', Carlito, 'Liberation Sans', 'DejaVu Sans', Arial, sans-serif`;
  const max = Math.max(1, ...rows.map((r) => r.count));
  const barLeft = labelWidth + 10;
  const barMax = width - barLeft - 60;
  const rowHeight = 36;
  const top = 14;
  const parts: string[] = [`<rect x="0" y="0" width="${width}" height="${height}" fill="#FFFFFF"/>`];
  rows.forEach((r, i) => {
    const y = top + i * rowHeight;
    const w = r.count === 0 ? 0 : Math.max(4, Math.round((r.count / max) * barMax));
    parts.push(
      `<text x="${labelWidth}" y="${y + 19}" text-anchor="end" font-size="15" ` +
        `fill="${style.colors.text}">${escapeXml(r.label)}</text>`,
      `<rect x="${barLeft}" y="${y + 2}" width="${barMax}" height="24" rx="3" fill="#F1F3F5"/>`,
    );
    if (w > 0) parts.push(`<rect x="${barLeft}" y="${y + 2}" width="${w}" height="24" rx="3" fill="${r.colour}"/>`);
    parts.push(
      `<text x="${barLeft + w + 8}" y="${y + 20}" font-size="16" font-weight="bold" ` +
        `fill="${style.colors.text}">${locale.integer(r.count)}</text>`,
    );
  });
  const footY = top + rows.length * rowHeight + 22;
  parts.push(
    `<line x1="${barLeft}" y1="${footY - 18}" x2="${barLeft + barMax}" y2="${footY - 18}" stroke="#CED4DA" ` +
      `stroke-width="1"/>`,
    `<text x="${barLeft}" y="${footY}" font-size="14" fill="${style.colors.secondary}">${escapeXml(footer)}</text>`,
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `font-family="${escapeXml(family)}">${parts.join('')}</svg>`
  );
}

/** A chart's SVG as PNG bytes, `BAR_CHART_SIZE` times two. */
export function barChartPng(svg: string): Uint8Array {
  const files = chartFontFiles();
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: SCALE },
    font:
      files.length > 0
        ? { fontFiles: files, loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' }
        : { loadSystemFonts: true },
  });
  return new Uint8Array(resvg.render().asPng());
}
