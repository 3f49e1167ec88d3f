// Report exports over HTTP (issue "Report documents"): a report with 500 findings and 12 tabs,
// exported as CSV (target under 200 ms), and the same for 5,000 findings. Median of several runs,
// measured from the request to the last byte.
import { startBenchService } from '../support/bench-service.ts';
import { sampleReportDocument } from '../support/sample-report-document.ts';
import { seedReport } from '../support/seed-report.ts';

async function timeDownload(url: string, key: string, runs: number): Promise<{ medianMs: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    bytes = (await res.arrayBuffer()).byteLength;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)]!, bytes };
}

export default async function run(): Promise<void> {
  const svc = await startBenchService();
  try {
    for (const findings of [500, 5000]) {
      const { key, reportId } = await seedReport(svc, sampleReportDocument({ findings, tabs: 12, images: 0 }));
      const csv = await timeDownload(`${svc.url}/rest/v1/reports/${reportId}/export-csv`, key, findings > 1000 ? 3 : 9);
      console.log(
        `${findings} findings, 12 tabs: CSV export ${csv.medianMs.toFixed(0)} ms median ` +
          `(${(csv.bytes / 1048576).toFixed(1)} ` +
          `MB)${findings === 500 ? ` — target < 200 ms: ${csv.medianMs < 200 ? 'met' : 'MISSED'}` : ''}`,
      );
    }
  } finally {
    await svc.stop();
  }
}
