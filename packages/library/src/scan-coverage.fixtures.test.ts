import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseScan, SCAN_FORMATS, type CompleteFinding } from '@service/scanners';
import { describe, expect, it } from 'vitest';
import { buildTemplateMatchIndex, loadLibrary, matchableTemplatesOfLibrary, measureCoverage } from './index.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');
const FIXTURES = path.resolve(REPO, '../shared/fixtures/scans');

describe('the shipped library against the fixture scans', () => {
  it('matches a template for at least 60% of the distinct non-informational findings', async () => {
    const library = await loadLibrary(path.join(REPO, 'library'));
    const findings: CompleteFinding[] = [];
    for (const format of SCAN_FORMATS) {
      for (const name of readdirSync(path.join(FIXTURES, format)))
        findings.push(...parseScan(readFileSync(path.join(FIXTURES, format, name)), { format }).findings);
    }
    const report = measureCoverage(findings, buildTemplateMatchIndex(matchableTemplatesOfLibrary(library)));
    expect(report.total).toBeGreaterThan(50);
    expect(
      report.percent,
      `unmatched: ${JSON.stringify(Object.values(report.byScanner).flatMap((s) => s.unmatched.map((u) => u.title)))}`,
    ).toBeGreaterThanOrEqual(60);
  });
});
