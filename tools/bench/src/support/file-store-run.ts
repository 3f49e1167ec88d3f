// One backend's run of the file-store benchmark, in a process of its own so its peak RSS is the
// service's alone: 200 evidence uploads and downloads through the REST API, then the DOCX export of
// a 500-finding report with 50 images. Prints one line of JSON. Settings come from the environment
// (FILES_STORE and the S3_* settings).
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { sampleReportDocument } from './sample-report-document.ts';
import { startBenchService } from './bench-service.ts';
import { seedReport } from './seed-report.ts';

const UPLOADS = 200;
const CONCURRENCY = 4;

/** Screenshot-like PNGs of about 0.5 MB: flat areas with a noisy band, distinct per seed. */
async function screenshots(count: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    // Why random bytes: a pattern compresses to nothing; these do not, like photos and busy screens.
    const band = randomBytes(1280 * 130 * 3);
    out.push(
      await sharp({ create: { width: 1280, height: 800, channels: 3, background: { r: 240, g: 240, b: 245 } } })
        .composite([{ input: band, raw: { width: 1280, height: 130, channels: 3 }, top: 200, left: 0 }])
        .png()
        .toBuffer(),
    );
  }
  return out;
}

async function inParallel<T>(items: readonly T[], work: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

async function main(): Promise<void> {
  const svc = await startBenchService(
    Object.fromEntries(
      Object.entries(process.env).filter(([k]) => k === 'FILES_STORE' || k.startsWith('S3_')),
    ) as Record<string, string>,
  );
  try {
    const images = await screenshots(10);
    const doc = sampleReportDocument({ findings: 500, tabs: 6, images: 0 });
    const { key, reportId } = await seedReport(svc, doc);
    const auth = { authorization: `Bearer ${key}` };
    const findingIds = (await svc.dbs
      .tenant('report_findings')
      .where({ report_id: reportId })
      .orderBy('position')
      .pluck('finding_id')) as string[];
    const upload = async (findingId: string, png: Buffer) => {
      const form = new FormData();
      form.append('findingId', findingId);
      form.append('file', new Blob([png]), 'screenshot.png');
      const res = await fetch(`${svc.url}/rest/v1/evidence-images`, { method: 'POST', headers: auth, body: form });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    // 200 uploads onto findings after the 50 the export shows images of.
    const ids: string[] = [];
    let uploaded = 0;
    let started = performance.now();
    await inParallel(
      Array.from({ length: UPLOADS }, (_, i) => i),
      async (i) => {
        ids[i] = await upload(findingIds[50 + (i % 400)]!, images[i % images.length]!);
        uploaded += images[i % images.length]!.length;
      },
    );
    const uploadMs = performance.now() - started;
    started = performance.now();
    let bytes = 0;
    await inParallel(ids, async (id) => {
      const res = await fetch(`${svc.url}/rest/v1/evidence-images/${id}/content`, { headers: auth });
      const got = (await res.arrayBuffer()).byteLength;
      if (res.status !== 200) throw new Error(`download: ${res.status}`);
      bytes += got;
    });
    const downloadMs = performance.now() - started;
    // 50 images on the first 50 findings of the report, then its DOCX (the second export is timed).
    await inParallel(
      Array.from({ length: 50 }, (_, i) => i),
      async (i) => {
        await upload(findingIds[i]!, images[i % images.length]!);
      },
    );
    const exportDocx = async () => {
      const t = performance.now();
      const res = await fetch(`${svc.url}/rest/v1/reports/${reportId}/export-docx`, { headers: auth });
      const size = (await res.arrayBuffer()).byteLength;
      if (res.status !== 200) throw new Error(`export: ${res.status}`);
      return { ms: performance.now() - t, size };
    };
    await exportDocx();
    const exported = await exportDocx();
    process.stdout.write(
      `${JSON.stringify({
        uploadMs,
        downloadMs,
        uploadedMb: uploaded / 1048576,
        downloadedMb: bytes / 1048576,
        exportMs: exported.ms,
        docxMb: exported.size / 1048576,
        peakRssMb: process.resourceUsage().maxRSS / 1024,
      })}\n`,
    );
  } finally {
    await svc.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
