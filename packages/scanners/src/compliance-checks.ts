import { toAffectedAsset } from './affected-assets.ts';
import type { CompleteFinding } from './normalized-finding.ts';
import { COMPLIANCE_CHECK_TYPE } from './parse-nessus.ts';

/** Longest text of one table cell; longer values are cut with an ellipsis. */
const CELL_CHARS = 300;
/** Rows of the table; an audit with more says how many were left out. */
const MAX_ROWS = 500;

/** A value in one Markdown table cell: one line, pipes escaped, capped. */
function cell(value: string | undefined): string {
  const line = (value ?? '').replace(/\s+/g, ' ').trim();
  const capped = line.length > CELL_CHARS ? `${line.slice(0, CELL_CHARS - 1)}…` : line;
  return capped.replace(/\\/g, '\\\\').replace(/\|/g, '\\|') || '—';
}

/**
 * The checks of a grouped compliance audit as a Markdown table a client can read (documents
 * render it as a table): one row per check and actual value, with the hosts where the check had
 * that result. Empty for any other finding.
 */
export function complianceChecksTable(f: CompleteFinding): string {
  if (f.checkType !== COMPLIANCE_CHECK_TYPE) return '';
  const rows = new Map<
    string,
    { id: string; name: string; expected: string; actual: string; solution: string; hosts: Set<string> }
  >();
  for (const o of f.occurrences) {
    const c = o.compliance;
    if (!c) continue;
    const key = JSON.stringify([c.checkId ?? c.checkName ?? '', c.actualValue ?? '']);
    let row = rows.get(key);
    if (!row) {
      row = {
        id: c.checkId ?? '',
        name: c.checkName ?? '',
        expected: c.policyValue ?? '',
        actual: c.actualValue ?? '',
        solution: c.solution ?? '',
        hosts: new Set(),
      };
      rows.set(key, row);
    }
    const host = toAffectedAsset(o).host;
    if (host) row.hosts.add(host);
  }
  if (rows.size === 0) return '';
  const all = [...rows.values()];
  const lines = [
    '| Check | Title | Expected | Actual | Hosts | Solution |',
    '|---|---|---|---|---|---|',
    ...all
      .slice(0, MAX_ROWS)
      .map(
        (r) =>
          `| ${cell(r.id)} | ${cell(r.name)} | ${cell(r.expected)} | ${cell(r.actual)} | ${cell([...r.hosts].join(', '))} | ${cell(r.solution)} |`,
      ),
  ];
  if (all.length > MAX_ROWS) lines.push('', `${all.length - MAX_ROWS} more checks are not listed here.`);
  return lines.join('\n');
}
