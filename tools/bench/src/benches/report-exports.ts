// Report exports over HTTP (issue "Report documents"): a report with 500 findings and 12 tabs,
// exported as CSV (target under 200 ms), and the same for 5,000 findings. Median of several runs,
// measured from the request to the last byte. Then each export again with its current ETag in
// `If-None-Match` (issue 33: "304 before work"): the 304 is answered from the validator without
// rendering, so it costs a read of the report, whatever the document's size.
import { startBenchService } from '../support/bench-service.ts';
import { sampleReportDocument } from '../support/sample-report-document.ts';
import { seedReport } from '../support/seed-report.ts';

interface Timed {
  medianMs: number;
  bytes: number;
  etag: string;
}

async function timeDownload(url: string, key: string, runs: number, ifNoneMatch?: string): Promise<Timed> {
  const times: number[] = [];
  let bytes = 0;
  let etag = '';
  const expected = ifNoneMatch ? 304 : 200;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${key}`, ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}) },
    });
    if (res.status !== expected) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    bytes = (await res.arrayBuffer()).byteLength;
    etag = res.headers.get('etag') ?? '';
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)]!, bytes, etag };
}

export default async function run(): Promise<void> {
  const svc = await startBenchService();
  try {
    for (const findings of [500, 5000]) {
      const { key, reportId } = await seedReport(svc, sampleReportDocument({ findings, tabs: 12, images: 0 }));
      const runs = findings > 1000 ? 3 : 9;
      const url = (kind: string) => `${svc.url}/rest/v1/reports/${reportId}/export-${kind}`;
      const csv = await timeDownload(url('csv'), key, runs);
      console.log(
        `${findings} findings, 12 tabs: CSV export ${csv.medianMs.toFixed(0)} ms median ` +
          `(${(csv.bytes / 1048576).toFixed(1)} ` +
          `MB)${findings === 500 ? ` — target < 200 ms: ${csv.medianMs < 200 ? 'met' : 'MISSED'}` : ''}`,
      );
      for (const kind of ['csv', 'markdown', 'docx']) {
        const made = kind === 'csv' ? csv : await timeDownload(url(kind), key, findings > 1000 ? 1 : 3);
        const notModified = await timeDownload(url(kind), key, runs, made.etag);
        console.log(
          `${findings} findings: ${kind} ${made.medianMs.toFixed(0)} ms made, ` +
            `${notModified.medianMs.toFixed(0)} ms answered 304 with its ETag ` +
            `(${(made.medianMs / notModified.medianMs).toFixed(0)}x less)`,
        );
      }
    }
  } finally {
    await svc.stop();
  }
}
