import { OccurrenceMerger } from './packages/scanners/src/merge-occurrences.ts';
const asset = { id: 'a' };
for (let r = 0; r < 5; r++) {
  const t = performance.now();
  const m = new OccurrenceMerger();
  for (let i = 0; i < 14000; i++) {
    const key = 'CVE-2020-' + (i % 11500);
    m.add(key, { asset, severity: 'low', port: 22 }, '5.0', () => ({ source: { scanner: 'nmap' }, ruleId: key, title: key, severity: 'low', severityRaw: '5.0', confidence: null, description: '', impact: null, remediation: null, cvss: [], checkType: 'cve' }), { cves: [key], references: ['https://vulners.com/cve/' + key] });
  }
  console.log((performance.now() - t).toFixed(1), 'ms');
}
