import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { emptyFinding, type ReportDocumentFinding } from '@service/report-model';
import { CSV_COLUMNS, reportFindingsCsv } from './report-findings-csv.ts';
import { CSV_RETEST_COLUMNS } from './retest-columns.ts';
import { parseCsv } from './testing/parse-csv.ts';

const finding: ReportDocumentFinding = {
  ...emptyFinding('Weak SSH MACs', 'low'),
  evidence: [],
  retest: {
    status: 'partially_resolved',
    statusSetBy: 'assets',
    statusNote: '',
    notes: '- retested with the original policy',
    retestedAt: '2026-11-20',
    riskAccepted: true,
    riskAcceptedNote: '=HYPERLINK("x")',
    assets: [
      { host: '192.168.2.100', port: 22, protocol: 'tcp', status: 'resolved', evidence: '' },
      { host: '127.0.0.1', port: 10142, url: 'http://127.0.0.1:10142/', status: 'unresolved', evidence: 'x' },
    ],
    evidence: [],
  },
};

async function rows(doc: Parameters<typeof reportFindingsCsv>[0]): Promise<string[][]> {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await buffer(reportFindingsCsv(doc)));
  return parseCsv(text.replace(/^\uFEFF/, ''));
}

describe('the retest columns of the CSV export', () => {
  it('a retest gets its columns after the finding columns; other reports keep theirs', async () => {
    const plain = await rows({ findings: [{ ...emptyFinding('Other', 'high'), evidence: [] }] });
    expect(plain[0]).toEqual([...CSV_COLUMNS]);
    const retest = await rows({ findings: [finding], retest: { round: 1, retestOf: null, original: null } });
    expect(retest[0]).toEqual([...CSV_COLUMNS, ...CSV_RETEST_COLUMNS.map((c) => c.header)]);
    const cell = (header: string) => retest[1]![retest[0]!.indexOf(header)];
    expect(cell('Retest status')).toBe('Partially resolved');
    expect(cell('Retest date')).toBe('2026-11-20');
    expect(cell('Retest notes')).toBe('- retested with the original policy');
    expect(cell('Asset retest statuses')).toBe(
      '192.168.2.100:22/tcp: Resolved\n127.0.0.1:10142 http://127.0.0.1:10142/: Unresolved',
    );
    expect(cell('Risk accepted')).toBe('yes');
    // Retest cells are neutralised like every other cell.
    expect(cell('Risk accepted note')).toBe(`'=HYPERLINK("x")`);
  });
});
