// Imports a Nessus scan into a new report and downloads the report as Word and PDF documents,
// with the service's client package (@service/client). Run it from the repository:
//
//   SERVICE_URL=https://reports.example.com SERVICE_API_KEY=service_sk_... \
//     npx tsx docs/examples/import-nessus.ts scan.nessus --client <client id> [--out <folder>]
//
// The key needs the client on its allow-list (an import adds to a report of that client), and the
// `api` licence feature. What the script does not do by hand, the package does: the key on every
// request, an Idempotency-Key on every create (a retry after a lost answer creates nothing twice),
// waits on 429 and 503 by Retry-After, paging by Link, errors with their code and details.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ApiError, createServiceClient, fileFrom, ok } from '@service/client';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { client: { type: 'string' }, out: { type: 'string', default: '.' } },
});
const scanFile = positionals[0];
const clientId = values.client ?? process.env.SERVICE_CLIENT_ID;
if (!scanFile || !clientId || !process.env.SERVICE_URL || !process.env.SERVICE_API_KEY) {
  process.stderr.write(
    'usage: SERVICE_URL=... SERVICE_API_KEY=... import-nessus.ts <scan.nessus> --client <client id> [--out <folder>]\n',
  );
  process.exit(2);
}

const service = createServiceClient({
  baseUrl: process.env.SERVICE_URL,
  apiKey: process.env.SERVICE_API_KEY,
  retry: { onRetry: (r) => process.stderr.write(`retrying ${r.request} in ${r.waitMs} ms (${r.reason})\n`) },
});

/** A file name from a report title: letters, digits, spaces, dots and dashes. */
const fileNameOf = (title: string) => title.replace(/[^\w .-]+/g, '').trim() || 'report';

try {
  const name = path.basename(scanFile, path.extname(scanFile));
  const project = await ok(
    service.api.POST('/rest/v1/projects', { body: { clientId, name: `Vulnerability scan ${name}` } }),
  );
  const report = await ok(
    service.api.POST('/rest/v1/reports', { body: { projectId: project.id, title: `Vulnerability scan: ${name}` } }),
  );
  const imported = await ok(
    service.api.POST('/rest/v1/reports/{id}/import-scan-file', {
      params: { path: { id: report.id } },
      body: { file: await fileFrom(scanFile), format: 'nessus' },
    }),
  );
  process.stderr.write(`imported ${imported.created} new findings, merged ${imported.merged} into ${report.title}\n`);

  // Every finding of the report, page after page.
  const bySeverity: Record<string, number> = {};
  for await (const finding of service.paginate('/rest/v1/findings', { report_id: report.id })) {
    bySeverity[finding.severity] = (bySeverity[finding.severity] ?? 0) + 1;
  }

  await mkdir(values.out, { recursive: true });
  const base = path.join(values.out, fileNameOf(report.title));
  const docx = await service.download('/rest/v1/reports/{id}/export-docx', { id: report.id }, `${base}.docx`);
  const pdf = await service.download('/rest/v1/reports/{id}/export-pdf', { id: report.id }, `${base}.pdf`);

  console.log(
    JSON.stringify({
      reportId: report.id,
      created: imported.created,
      merged: imported.merged,
      bySeverity,
      docx: docx?.file,
      pdf: pdf?.file,
    }),
  );
} catch (err) {
  if (!(err instanceof ApiError)) throw err;
  process.stderr.write(`${err.message}\n`);
  for (const detail of err.details) process.stderr.write(`  ${detail.path}: ${detail.message}\n`);
  if (err.requestId) process.stderr.write(`  request id (for your operator): ${err.requestId}\n`);
  process.exit(1);
}
