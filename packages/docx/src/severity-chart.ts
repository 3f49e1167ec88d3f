import type { ResolvedReportStyle, Severity } from '@service/report-model';
import { BAR_CHART_SIZE, barChartPng, barChartSvg } from './bar-chart.ts';
import type { ReportLocale } from './messages/report-locale.ts';
import { SEVERITIES_DESCENDING } from './report-labels.ts';

/** The severity overview as a picture: one bar per severity in the style's severity colours, the total underneath. */

export const SEVERITY_CHART_SIZE = BAR_CHART_SIZE;

export function severityChartSvg(
  counts: Record<Severity, number>,
  style: ResolvedReportStyle,
  locale: ReportLocale,
): string {
  const total = SEVERITIES_DESCENDING.reduce((n, s) => n + counts[s], 0);
  return barChartSvg(
    SEVERITIES_DESCENDING.map((s) => ({
      label: locale.severity(s),
      count: counts[s],
      colour: style.severityColors[s],
    })),
    locale.plural('findingsInTotal', total),
    style,
    locale,
    120,
  );
}

/** The chart as PNG bytes, `SEVERITY_CHART_SIZE` times two. */
export function renderSeverityChartPng(
  counts: Record<Severity, number>,
  style: ResolvedReportStyle,
  locale: ReportLocale,
): Uint8Array {
  return barChartPng(severityChartSvg(counts, style, locale));
}
