import type { Severity } from '../api/api-types.ts';
import { t } from '../i18n/i18n.ts';

export const SEVERITY_ORDER: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

export function severityLabel(severity: Severity): string {
  return t({ critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' }[severity]);
}

/** The severity as text on its colour (never colour alone). */
export function SeverityBadge({ severity }: { severity: Severity }) {
  return <span class={`badge severity-${severity}`}>{severityLabel(severity)}</span>;
}
