// PDF export: the 500-finding report with 12 tabs and 50 large evidence images (the same as the
// DOCX benchmark's large-image rows), rendered as DOCX and converted with LibreOffice headless by
// @service/docx's DocxPdfConverter (every index and field updated, so the contents has page
// numbers), in our layout and through the example Word template. Each runs in a fresh child
// process. Figures: wall time of the DOCX render and of the conversion, pages, PDF size, peak RSS
// of the Node process and of LibreOffice (GNU time, when /usr/bin/time is there).
// Target: DOCX + PDF under 20 s.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveReportStyle } from '@service/report-model';
import { DocxPdfConverter, renderReportDocx, renderTemplateDocx } from '@service/docx';
import { sampleReportDocument } from '../support/sample-report-document.ts';
import { largeEvidenceImage } from './docx.ts';

const TARGET_MS = 20_000;

interface ChildReport {
  docxMs: number;
  pdfMs: number;
  pages: number;
  pdfMb: number;
  nodePeakRssMb: number;
  officePeakRssMb: number | null;
}

function runChild(mode: 'layout' | 'template'): ChildReport {
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'child', mode], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`the ${mode} PDF run failed with exit code ${child.status}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ChildReport;
}

export default async function run(): Promise<void> {
  if (spawnSync('soffice', ['--version']).status !== 0) {
    console.log('skipped: soffice (LibreOffice) is not installed');
    return;
  }
  console.log(
    'findings  images  renderer          DOCX ms  PDF ms  total s  pages  PDF MB  node RSS MB  office RSS MB  target',
  );
  let missed = 0;
  for (const mode of ['layout', 'template'] as const) {
    const r = runChild(mode);
    const total = r.docxMs + r.pdfMs;
    const met = total < TARGET_MS;
    if (!met) missed++;
    console.log(
      [
        '500'.padStart(8),
        '50'.padStart(6),
        (mode === 'layout' ? 'our layout' : 'example template').padEnd(16),
        r.docxMs.toFixed(0).padStart(7),
        r.pdfMs.toFixed(0).padStart(6),
        (total / 1000).toFixed(1).padStart(7),
        String(r.pages).padStart(5),
        r.pdfMb.toFixed(1).padStart(6),
        r.nodePeakRssMb.toFixed(0).padStart(11),
        (r.officePeakRssMb === null ? 'n/a' : r.officePeakRssMb.toFixed(0)).padStart(13),
        ` ${met ? 'met' : 'MISSED'} (< ${TARGET_MS / 1000} s)`,
      ].join('  '),
    );
  }
  console.log(missed === 0 ? 'targets met' : `${missed} target(s) missed`);
}

async function child(mode: 'layout' | 'template'): Promise<void> {
  const doc = sampleReportDocument({ findings: 500, tabs: 12, images: 50 });
  const images = new Map<string, Uint8Array>();
  let seed = 1;
  for (const f of doc.findings) for (const e of f.evidence) images.set(e.sha256, await largeEvidenceImage(seed++));
  const options = {
    style: resolveReportStyle(null),
    loadImage: async (ref: { sha256: string }) => images.get(ref.sha256) ?? null,
  };
  const template = readFileSync(
    fileURLToPath(new URL('../../../../library/report-styles/word-template-example.docx', import.meta.url)),
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-pdf-'));
  try {
    // Why GNU time around soffice: LibreOffice's peak memory is the figure an operator sizes for.
    const timeFile = path.join(dir, 'office-time.txt');
    const command = existsSync('/usr/bin/time')
      ? ['/usr/bin/time', '-f', '%M', '-o', timeFile, 'soffice']
      : ['soffice'];
    const converter = new DocxPdfConverter({ command, timeoutMs: 600_000 });
    const t0 = performance.now();
    const docx =
      mode === 'layout' ? await renderReportDocx(doc, options) : await renderTemplateDocx(template, doc, options);
    const t1 = performance.now();
    const pdf = await converter.convert(docx);
    const t2 = performance.now();
    const pages = (new TextDecoder('latin1').decode(pdf).match(/\/Type\s*\/Page\b/g) ?? []).length;
    const officeKb = existsSync(timeFile) ? Number(readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)) : NaN;
    const report: ChildReport = {
      docxMs: t1 - t0,
      pdfMs: t2 - t1,
      pages,
      pdfMb: pdf.byteLength / 1048576,
      nodePeakRssMb: process.resourceUsage().maxRSS / 1024,
      officePeakRssMb: Number.isFinite(officeKb) ? officeKb / 1024 : null,
    };
    console.log(JSON.stringify(report));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') await child(process.argv[3] as 'layout' | 'template');
