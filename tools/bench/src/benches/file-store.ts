// The file store on each backend (issue 30 item 9): 200 evidence images (1280 × 800 screenshots of
// about 0.5 MB) uploaded and downloaded through the REST API, four at a time, and the DOCX export of
// a 500-finding report with 50 images; on a local directory and on S3 (Ceph's RADOS Gateway on
// this machine, started for the run). Each backend runs in a process of its own, so the peak RSS
// printed is that service's. Prints times, S3/local ratios and peak memory.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { missingCephBinaries, s3Env, startCephRgw, stopCephRgw } from '@service/storage/testing';

interface Figures {
  uploadMs: number;
  downloadMs: number;
  uploadedMb: number;
  downloadedMb: number;
  exportMs: number;
  docxMb: number;
  peakRssMb: number;
}

const RUN = path.join(import.meta.dirname, '../support/file-store-run.ts');

function runBackend(env: Record<string, string>): Promise<Figures> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', RUN],
      { env: { ...process.env, ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, maxBuffer: 1 << 24 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${err.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Figures);
      },
    );
  });
}

export default async function fileStore(): Promise<void> {
  const results: Array<[string, Figures]> = [['local directory', await runBackend({ FILES_STORE: 'local' })]];
  const missing = missingCephBinaries();
  if (missing.length > 0) {
    console.log(`S3 skipped: ${missing.join(', ')} not found (apt-get install ceph-mon ceph-osd radosgw uuid-runtime)`);
  } else {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-ceph-'));
    const gateway = await startCephRgw(path.join(dir, 'ceph'), 'bench');
    try {
      results.push(['S3 (Ceph RGW)', await runBackend(s3Env({ ...gateway.settings, prefix: 'bench/' }))]);
    } finally {
      await stopCephRgw(gateway);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(
    'backend            200 uploads ms  200 downloads ms (MB)  DOCX 500 findings/50 images ms (MB)  peak RSS MB',
  );
  for (const [name, f] of results)
    console.log(
      `${name.padEnd(18)} ${f.uploadMs.toFixed(0).padStart(14)}  ${f.downloadMs.toFixed(0).padStart(10)} (${f.downloadedMb.toFixed(0)})` +
        `${f.exportMs.toFixed(0).padStart(28)} (${f.docxMb.toFixed(1)})${f.peakRssMb.toFixed(0).padStart(14)}`,
    );
  const [local, s3] = [results[0]?.[1], results[1]?.[1]];
  if (local && s3)
    console.log(
      `S3 / local: uploads ${(s3.uploadMs / local.uploadMs).toFixed(2)}x, downloads ${(s3.downloadMs / local.downloadMs).toFixed(2)}x, ` +
        `DOCX export ${(s3.exportMs / local.exportMs).toFixed(2)}x, peak RSS ${(s3.peakRssMb / local.peakRssMb).toFixed(2)}x`,
    );
}
