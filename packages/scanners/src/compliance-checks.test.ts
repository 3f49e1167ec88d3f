import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { complianceChecksTable } from './compliance-checks.ts';
import { findingOfScanResult } from './finding-of-scan-result.ts';
import { parseScan } from './parse-scan.ts';

const AUDIT = path.resolve(
  import.meta.dirname,
  '../../../fixtures/public/nessus/turingsecure-nessus.js-azure-compliance.nessus',
);

describe('the checks of a compliance audit', () => {
  const { findings } = parseScan(readFileSync(AUDIT), { format: 'nessus' });
  const audits = findings.filter((f) => f.checkType === 'compliance');

  it('become a Markdown table in the finding details, one row per check and actual value', () => {
    expect(audits.length).toBeGreaterThan(0);
    for (const audit of audits) {
      const table = findingOfScanResult(audit).details;
      const lines = table.split('\n');
      expect(lines[0]).toBe('| Check | Title | Expected | Actual | Hosts | Solution |');
      expect(lines[1]).toBe('|---|---|---|---|---|---|');
      // Every row has six cells: no pipe or line break of a value leaks into the table.
      for (const row of lines.slice(2).filter((l) => l.startsWith('|')))
        expect(row.split(/(?<!\\)\|/).length - 2, row).toBe(6);
      const checks = new Set(audit.occurrences.map((o) => o.compliance?.checkName));
      for (const name of [...checks].slice(0, 5))
        if (name) expect(table).toContain(name.slice(0, 40).replace(/\|/g, '\\|'));
    }
  });

  it('is empty for findings that are not compliance audits', () => {
    const other = findings.find((f) => f.checkType !== 'compliance');
    if (other) expect(complianceChecksTable(other)).toBe('');
  });
});
