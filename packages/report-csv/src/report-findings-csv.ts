import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { AffectedAsset, ReportDocument, ReportDocumentFinding } from '@service/report-model';

/** One column per field, in this order; the header row uses these names. */
export const CSV_COLUMNS = [
  'Number',
  'Title',
  'Severity',
  'Status',
  'CVSS version',
  'CVSS vector',
  'CVSS base score',
  'CVEs',
  'CWEs',
  'Hosts',
  'Affected assets',
  'Description',
  'Impact',
  'Remediation',
  'References',
  'Source',
  'Finding id',
] as const;

/** Lists inside a cell: one item per line, which spreadsheets show wrapped in the cell. */
const LIST_SEPARATOR = '\n';

/**
 * A cell a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, tab or carriage
 * return) gets a leading apostrophe, which Excel and LibreOffice show as text and never evaluate
 * (OWASP "CSV injection").
 */
export function neutralizeFormula(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

function assetText(a: AffectedAsset): string {
  const place = [
    a.host ?? '',
    a.port !== undefined && a.port !== null ? `:${a.port}` : '',
    a.protocol ? `/${a.protocol}` : '',
  ].join('');
  return [place, a.url, a.parameter ? `parameter ${a.parameter}` : ''].filter((p) => p).join(' ');
}

/** The first CVSS rating of the newest version a finding has (4.0 over 3.x over 2.0). */
function primaryCvss(f: ReportDocumentFinding) {
  return [...f.cvss].sort((a, b) => b.version.localeCompare(a.version))[0] ?? null;
}

function row(f: ReportDocumentFinding, index: number): string[] {
  const cvss = primaryCvss(f);
  const hosts = [...new Set(f.affectedAssets.map((a) => a.host).filter((h): h is string => !!h))];
  const source =
    f.source.kind === 'scanner'
      ? `${f.source.scanner ?? 'scanner'}:${f.source.ruleId ?? ''}`
      : f.source.kind === 'template'
        ? `template:${f.source.templateKey ?? f.source.templateId ?? ''}`
        : 'manual';
  return [
    String(index + 1),
    f.title,
    f.severity,
    f.status,
    cvss?.version ?? '',
    cvss?.vector ?? '',
    cvss?.baseScore !== null && cvss?.baseScore !== undefined ? cvss.baseScore.toFixed(1) : '',
    f.cves.join(LIST_SEPARATOR),
    f.cwes.map((c) => `CWE-${c}`).join(LIST_SEPARATOR),
    hosts.join(LIST_SEPARATOR),
    f.affectedAssets.map(assetText).join(LIST_SEPARATOR),
    f.description,
    f.impact,
    f.remediation,
    f.references.join(LIST_SEPARATOR),
    source,
    f.id ?? '',
  ].map(neutralizeFormula);
}

/**
 * One row per attached finding, in report order, after a header row: RFC 4180 (CRLF, quotes
 * doubled), UTF-8 with a byte-order mark so Excel picks the encoding, streamed row by row.
 */
export function reportFindingsCsv(doc: Pick<ReportDocument, 'findings'>): Readable {
  const csv = stringify({
    header: true,
    columns: [...CSV_COLUMNS],
    bom: true,
    record_delimiter: 'windows',
    quoted_match: /[\s,"']/,
  });
  const findings = doc.findings;
  let i = 0;
  // Why a pull-driven source: thousands of findings with long text are written as the client reads.
  const source = new Readable({
    objectMode: true,
    read() {
      // Why the index moves before the push: when push() asks to stop, the row was still taken;
      // returning before moving on would send it again at the next read, for ever.
      while (i < findings.length) {
        const index = i++;
        if (!this.push(row(findings[index]!, index))) return;
      }
      this.push(null);
    },
  });
  return source.pipe(csv);
}
