// Peak memory and time of parseScanStream on large Nessus files read with fs.createReadStream.
// Target: a ~200 MB file parses with peak RSS < 300 MB. Each file is parsed in a fresh child
// process (so the runner's own memory does not count), which samples process.memoryUsage().rss
// every 50 ms. Files come from the seeded generator in ../shared/bench and are written to a
// temporary folder, never into the repository.
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseScanStream } from '@service/scanners';
import { benchGenerator } from '../support/shared-bench.ts';

const TARGET_PEAK_MB = 300;
const SAMPLE_MS = 50;

/** Generator settings: the 50 MB one is the size the reference importer was measured on. */
const FILES = [
  { label: '50 MB', hosts: 3750, targetMb: 50 },
  { label: '200 MB', hosts: 15000, targetMb: 200 },
];

interface ChildReport {
  ms: number;
  rssBeforeMb: number;
  peakRssMb: number;
  heapAfterMb: number;
  findings: number;
  occurrences: number;
}

export default async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scanner-stream-memory-'));
  try {
    console.log(`files in ${dir}; each parsed in a child process (--expose-gc), RSS sampled every ${SAMPLE_MS} ms`);
    console.log(
      'file     size MB   time s   MB/s   RSS before MB   peak RSS MB   heap after MB   findings/occurrences   target',
    );
    for (const { label, hosts, targetMb } of FILES) {
      const file = path.join(dir, `bench-${targetMb}.nessus`);
      execFileSync(
        'python3',
        [benchGenerator('gen_nessus.py'), '-o', file, '--hosts', String(hosts), '--target-mb', String(targetMb)],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const sizeMb = statSync(file).size / 1024 / 1024;
      const report = measureInChild(file);
      const met = report.peakRssMb < TARGET_PEAK_MB;
      console.log(
        [
          label.padEnd(7),
          sizeMb.toFixed(1).padStart(8),
          (report.ms / 1000).toFixed(2).padStart(7),
          (sizeMb / (report.ms / 1000)).toFixed(1).padStart(6),
          report.rssBeforeMb.toFixed(0).padStart(14),
          report.peakRssMb.toFixed(0).padStart(12),
          report.heapAfterMb.toFixed(0).padStart(14),
          `${report.findings}/${report.occurrences}`.padStart(21),
          targetMb >= 200 ? (met ? `met (< ${TARGET_PEAK_MB} MB)` : `MISSED (>= ${TARGET_PEAK_MB} MB)`) : '',
        ].join('  '),
      );
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function measureInChild(file: string): ChildReport {
  const self = fileURLToPath(import.meta.url);
  // execArgv carries `--import tsx` from the runner, so the child can load TypeScript too.
  const child = spawnSync(process.execPath, [...process.execArgv, '--expose-gc', self, file], {
    encoding: 'utf8',
    maxBuffer: 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`memory child failed (${child.status}): ${child.stderr}`);
  const last = child.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as ChildReport;
}

/** Runs in the child: parse one file from a read stream while sampling RSS. */
async function measureParse(file: string): Promise<ChildReport> {
  (globalThis as { gc?: () => void }).gc?.();
  const toMb = (bytes: number) => bytes / 1024 / 1024;
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, SAMPLE_MS);
  const started = performance.now();
  const result = await parseScanStream(createReadStream(file), { format: 'nessus' });
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    ms,
    rssBeforeMb: toMb(rssBefore),
    peakRssMb: toMb(peak),
    heapAfterMb: toMb(process.memoryUsage().heapUsed),
    findings: result.findings.length,
    occurrences: result.findings.reduce((sum, finding) => sum + finding.occurrences.length, 0),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2];
  if (file === undefined) {
    console.error('usage: node --import tsx scanner-stream-memory.ts <file.nessus>');
    process.exit(2);
  }
  console.log(JSON.stringify(await measureParse(file)));
}
