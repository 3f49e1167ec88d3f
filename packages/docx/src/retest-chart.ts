import type { ResolvedReportStyle, RetestStatus } from '@service/report-model';
import type { ReportLocale } from './messages/report-locale.ts';
import { retestStatusKey } from './messages/report-messages.ts';
import { BAR_CHART_SIZE, barChartPng, barChartSvg } from './bar-chart.ts';

/**
 * The retest overview as a picture: how many findings are resolved against those still open (in
 * part, entirely, or first seen in the retest), and those not retested, one bar each in the
 * retest colours, with the count at its end and "n of m findings resolved, k open" underneath.
 * Drawn like the severity chart.
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

export const RETEST_CHART_SIZE = BAR_CHART_SIZE;

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
  const { resolved, open, total } = retestTotals(counts);
  return barChartSvg(
    RETEST_STATUS_ORDER.map((s) => ({
      label: locale.text(retestStatusKey(s)),
      count: counts[s],
      colour: RETEST_STATUS_COLOURS[s],
    })),
    locale.plural('findingsResolvedOf', total, { resolved: locale.integer(resolved), open: locale.integer(open) }),
    style,
    locale,
    150,
  );
}

/** The chart as PNG bytes, `RETEST_CHART_SIZE` times two. */
export function renderRetestChartPng(
  counts: Record<RetestStatus, number>,
  style: ResolvedReportStyle,
  locale: ReportLocale,
): Uint8Array {
  return barChartPng(retestChartSvg(counts, style, locale));
}
