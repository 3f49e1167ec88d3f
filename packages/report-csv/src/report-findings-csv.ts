import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import {
  assetExcerpt,
  describeFindingSource,
  FINDING_FIELDS,
  type AffectedAsset,
  type Cvss,
  type FindingFieldDeclaration,
  type FindingFieldName,
  type FindingSource,
  type ReportDocument,
  type ReportDocumentFinding,
} from '@service/report-model';
import { CSV_RETEST_COLUMNS } from './retest-columns.ts';

/** Lists inside a cell: one item per line, which spreadsheets show wrapped in the cell. */
const LIST_SEPARATOR = '\n';

/** Always the start of a formula (`=`, `@` as in `@SUM(...)`), or a way to hide one (tab, carriage return, NUL). */
const FORMULA_START = /^[=@\t\r\0]/;
/** A number with a sign, as a spreadsheet reads it: `-5`, `+3.5`, `-1,234.5`, `-2e3`, `-12%`. */
const SIGNED_NUMBER = /^[+-](?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?%?$/;
/** A Markdown list item or prose after a sign: `- item`, `+ item`. */
const SIGN_THEN_SPACE = /^[+-]\s/;
/**
 * What a formula needs to reach anything outside its own sheet: a function call (HYPERLINK,
 * WEBSERVICE, IMPORTXML, DDE...), Excel's DDE syntax (`|`), or a reference to another sheet or
 * file (`!` in Excel, `#` in LibreOffice).
 */
const REACHES_OUT = /[A-Za-z_][\w.]*\s*\(|[|!#]/;

/**
 * A cell with a leading apostrophe when a spreadsheet would run it as a formula, so it shows as
 * text (OWASP "CSV injection"). Neutralised: every cell starting with `=`, `@`, tab, carriage
 * return or NUL; and a cell starting with `+` or `-` unless it is a number (`-5`) or a list item or
 * sentence (`- item`, a sign then a space) holding no function call, `|`, `!` or `#`, the only ways
 * a formula can call out or read another sheet or file. Markdown lists and negative numbers stay as
 * they are; `-2+3` and `+HYPERLINK(...)` do not.
 */
export function neutralizeFormula(cell: string): string {
  if (FORMULA_START.test(cell)) return `'${cell}`;
  if (cell[0] !== '+' && cell[0] !== '-') return cell;
  if (SIGNED_NUMBER.test(cell)) return cell;
  if (SIGN_THEN_SPACE.test(cell) && !REACHES_OUT.test(cell)) return cell;
  return `'${cell}`;
}

function assetText(a: AffectedAsset): string {
  const place = [
    a.host ?? '',
    a.port !== undefined && a.port !== null ? `:${a.port}` : '',
    a.protocol ? `/${a.protocol}` : '',
  ].join('');
  return [place, a.url, a.parameter ? `parameter ${a.parameter}` : ''].filter((p) => p).join(' ');
}

/** Excel shows at most 32,767 characters of a cell; the evidence cell keeps below that. */
const EVIDENCE_CELL_CHARS = 32_000;

/**
 * The evidence of a finding's assets for a spreadsheet: each asset with evidence as its location
 * line and its excerpt (what the client documents show), blocks separated by a blank line; what
 * does not fit a cell is said.
 */
function evidenceCell(f: ReportDocumentFinding): string {
  const blocks: string[] = [];
  let size = 0;
  const withEvidence = f.affectedAssets.filter((a) => (a.evidence ?? a.excerpt ?? '').trim() !== '');
  for (let i = 0; i < withEvidence.length; i++) {
    const a = withEvidence[i]!;
    const block = `${assetText(a) || 'asset'}\n${assetExcerpt(a, f.title) ?? ''}`;
    if (size + block.length + 2 > EVIDENCE_CELL_CHARS - 100) {
      const rest = withEvidence.length - i;
      blocks.push(`[… the evidence of ${rest} more asset${rest === 1 ? '' : 's'} left out]`);
      break;
    }
    blocks.push(block);
    size += block.length + 2;
  }
  return blocks.join('\n\n');
}

/** The first CVSS rating of the newest version a finding has (4.0 over 3.x over 2.0). */
function primaryCvss(cvss: readonly Cvss[]): Cvss | null {
  return [...cvss].sort((a, b) => b.version.localeCompare(a.version))[0] ?? null;
}

const list = (items: readonly string[]) => items.join(LIST_SEPARATOR);

/** A field's columns: their headers and their cells of one finding, by the field's shape. */
function fieldColumns(name: FindingFieldName, f: FindingFieldDeclaration): CsvColumn[] {
  const value = (finding: ReportDocumentFinding) => finding[name];
  switch (f.shape) {
    case 'title':
    case 'severity':
    case 'status':
    case 'markdown':
    case 'note':
      return [{ header: f.label, cell: (x) => value(x) as string }];
    case 'cvss': {
      const primary = (x: ReportDocumentFinding) => primaryCvss(value(x) as Cvss[]);
      return [
        { header: `${f.label} version`, cell: (x) => primary(x)?.version ?? '' },
        { header: `${f.label} vector`, cell: (x) => primary(x)?.vector ?? '' },
        {
          header: `${f.label} base score`,
          cell: (x) => {
            const score = primary(x)?.baseScore;
            return score === null || score === undefined ? '' : score.toFixed(1);
          },
        },
      ];
    }
    case 'cveList':
    case 'referenceList':
      return [{ header: f.label, cell: (x) => list(value(x) as string[]) }];
    case 'cweList':
      return [{ header: f.label, cell: (x) => list((value(x) as number[]).map((c) => `CWE-${c}`)) }];
    case 'assets': {
      const assets = (x: ReportDocumentFinding) => value(x) as AffectedAsset[];
      return [
        {
          header: 'Hosts',
          cell: (x) =>
            list([
              ...new Set(
                assets(x)
                  .map((a) => a.host)
                  .filter((h): h is string => !!h),
              ),
            ]),
        },
        { header: f.label, cell: (x) => list(assets(x).map(assetText)) },
        { header: 'Evidence', cell: evidenceCell },
      ];
    }
    case 'source':
      return [{ header: f.label, cell: (x) => describeFindingSource(value(x) as FindingSource) }];
    default:
      return f.shape satisfies never;
  }
}

interface CsvColumn {
  header: string;
  cell(finding: ReportDocumentFinding, index: number): string;
}

const FIELD_COLUMNS = (Object.entries(FINDING_FIELDS) as Array<[FindingFieldName, FindingFieldDeclaration]>).map(
  ([name, f]) => [name, fieldColumns(name, f)] as const,
);

/** Every column, in order: the finding's number, then each field's columns in declaration order, then its id. */
const COLUMNS: readonly CsvColumn[] = [
  { header: 'Number', cell: (_f, index) => String(index + 1) },
  ...FIELD_COLUMNS.flatMap(([, columns]) => columns),
  { header: 'Finding id', cell: (f) => f.id ?? '' },
];

/** The headers of the columns each finding field is written to. */
export const CSV_COLUMNS_OF_FIELD = Object.fromEntries(
  FIELD_COLUMNS.map(([name, columns]) => [name, columns.map((c) => c.header)]),
) as Record<FindingFieldName, string[]>;

/** The header row's names, in column order. */
export const CSV_COLUMNS: readonly string[] = COLUMNS.map((c) => c.header);

/** A retest report's columns: the finding columns, then its retest columns. */
const RETEST_REPORT_COLUMNS: readonly CsvColumn[] = [...COLUMNS, ...CSV_RETEST_COLUMNS];

function row(columns: readonly CsvColumn[], f: ReportDocumentFinding, index: number): string[] {
  return columns.map((c) => neutralizeFormula(c.cell(f, index)));
}

/**
 * One row per attached finding, in report order, after a header row (a retest's rows end with its
 * retest columns, `CSV_RETEST_COLUMNS`): RFC 4180 (CRLF, quotes
 * doubled), UTF-8 with a byte-order mark so Excel picks the encoding, streamed row by row.
 */
export function reportFindingsCsv(doc: Pick<ReportDocument, 'findings' | 'retest'>): Readable {
  // Why only for retests: the columns of other reports stay as they were.
  const columns = doc.retest ? RETEST_REPORT_COLUMNS : COLUMNS;
  const csv = stringify({
    header: true,
    columns: columns.map((c) => c.header),
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
        if (!this.push(row(columns, findings[index]!, index))) return;
      }
      this.push(null);
    },
  });
  return source.pipe(csv);
}
