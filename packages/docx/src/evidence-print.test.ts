// Evidence images in print: scaled to about 200 dpi at the size they are printed, JPEG re-encoded,
// PNG kept lossless, WebP embedded as PNG, tall screenshots cut into page-high parts, the printed
// size unchanged; and the originals when scaling is turned off.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { budgetMs } from '@service/test-lanes';
import { resolveReportStyle, type ReportDocument } from '@service/report-model';
import { imageSize } from 'image-size';
import { renderReportDocx, renderTemplateDocx } from './index.ts';
import { MAX_IMAGE_SLICES, prepareForPrint, printPixels } from './evidence-print.ts';
import { readEvidenceImage } from './evidence-images.ts';
import { pageGeometry } from './our-layout/page-geometry.ts';
import { para, templateWithBody } from './testing/template-fixtures.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';
import { readZip } from './zip-archive.ts';

const hash = (c: string) => c.repeat(64);
/** Each test decodes, scales and encodes the five images, about 16 megapixels. */
const RENDER = { timeout: budgetMs(16, 4_000) };
const images: Record<string, Uint8Array> = {};
const noise = (width: number, height: number) =>
  sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  });

beforeAll(async () => {
  images[hash('a')] = new Uint8Array(await noise(3000, 1500).png().toBuffer()); // a wide screenshot
  images[hash('b')] = new Uint8Array(
    await noise(4000, 3000)
      .jpeg({ quality: 95 })
      .withMetadata({ exif: { IFD0: { Copyright: 'secret camera owner' } } })
      .toBuffer(),
  ); // a photo
  images[hash('c')] = new Uint8Array(await noise(900, 4000).png().toBuffer()); // a scrolled page
  images[hash('d')] = new Uint8Array(await noise(400, 300).webp({ lossless: true }).toBuffer());
  images[hash('e')] = new Uint8Array(await noise(300, 200).png().toBuffer()); // small: kept as it is
});

function report(): ReportDocument {
  const finding = structuredClone(SAMPLE_REPORT.findings[0]!);
  finding.evidence = ['a', 'b', 'c', 'd', 'e'].map((c) => ({
    sha256: hash(c),
    fileName: `${c}.img`,
    caption: `Evidence ${c}`,
  }));
  return { ...structuredClone(SAMPLE_REPORT), findings: [finding] };
}

const options = (scaleImages = true) => ({
  style: resolveReportStyle(null),
  loadImage: async (ref: { sha256: string }) => images[ref.sha256] ?? null,
  now: new Date('2024-03-10T00:00:00Z'),
  scaleImages,
});

const unzip = (docx: Uint8Array) => readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 });

/** Each picture the document draws: its name, the media part it shows, and its printed size in pixels. */
function drawings(docx: Uint8Array) {
  const parts = unzip(docx);
  const doc = new TextDecoder().decode(parts.get('word/document.xml')!);
  const rels = new TextDecoder().decode(parts.get('word/_rels/document.xml.rels')!);
  const target = (rId: string) => new RegExp(`Id="${rId}"[^>]*Target="([^"]+)"`).exec(rels)![1]!;
  return [...doc.matchAll(/<wp:extent cx="(\d+)" cy="(\d+)"\/>[\s\S]*?name="([^"]*)"[\s\S]*?r:embed="([^"]+)"/g)].map(
    (m) => {
      const media = parts.get(`word/${target(m[4]!)}`)!;
      return {
        name: m[3]!,
        shown: { width: Math.round(Number(m[1]) / 9525), height: Math.round(Number(m[2]) / 9525) },
        media,
        pixels: imageSize(media),
      };
    },
  );
}

describe('evidence images in print', () => {
  it(
    'are scaled to print resolution at their printed size, and tall screenshots are cut into page-high parts',
    RENDER,
    async () => {
      const box = pageGeometry('A4').printBox;
      const scaled = drawings(await renderReportDocx(report(), options()));
      const byName = (name: string) => scaled.filter((d) => d.name.startsWith(name));

      const [wide] = byName('a.img');
      expect(wide!.shown.width).toBe(box.width); // printed as large as before
      expect(wide!.pixels).toMatchObject({ type: 'png', width: printPixels(box.width) });

      const [photo] = byName('b.img');
      expect(photo!.pixels).toMatchObject({ type: 'jpg', width: printPixels(photo!.shown.width) });
      expect(photo!.media.byteLength).toBeLessThan(images[hash('b')]!.byteLength / 4);
      expect(Buffer.from(photo!.media).includes('secret camera owner')).toBe(false); // metadata dropped

      const parts = byName('c.img');
      expect(parts.length).toBeGreaterThan(1);
      for (const p of parts) {
        expect(p.shown.width).toBe(box.width); // full text width: the text in it stays readable
        expect(p.shown.height).toBeLessThanOrEqual(box.sliceHeight);
        expect(p.pixels.type).toBe('png');
      }
      expect(parts.map((p) => p.name)).toEqual(parts.map((_, i) => `c.img (${i + 1}/${parts.length})`));
      expect(new Set(parts.map((p) => Buffer.from(p.media).toString('base64'))).size).toBe(parts.length);
      const shownHeight = parts.reduce((n, p) => n + p.shown.height, 0);
      expect(Math.abs(shownHeight - Math.round((4000 * box.width) / 900))).toBeLessThanOrEqual(parts.length);

      const [webp] = byName('d.img');
      expect(webp!.pixels).toMatchObject({ type: 'png', width: 400, height: 300 });

      const [small] = byName('e.img');
      expect(Buffer.from(small!.media).equals(Buffer.from(images[hash('e')]!))).toBe(true);
    },
  );

  it('keep PNG lossless: the embedded pixels are the resized original', RENDER, async () => {
    const [wide] = drawings(await renderReportDocx(report(), options())).filter((d) => d.name === 'a.img');
    const expected = await sharp(images[hash('a')]!).resize({ width: wide!.pixels.width }).raw().toBuffer();
    expect((await sharp(wide!.media).raw().toBuffer()).equals(expected)).toBe(true);
  });

  it('are embedded as uploaded when scaling is off (WebP then stays a placeholder, as before)', RENDER, async () => {
    const docx = await renderReportDocx(report(), options(false));
    const original = drawings(docx);
    for (const c of ['a', 'b', 'c', 'e']) {
      const d = original.find((x) => x.name === `${c}.img`)!;
      expect(Buffer.from(d.media).equals(Buffer.from(images[hash(c)]!)), c).toBe(true);
    }
    expect(new TextDecoder().decode(unzip(docx).get('word/document.xml')!)).toContain(
      '[Image d.img cannot be embedded (webp;',
    );
  });

  it('are scaled the same way in a Word template, for its text width', RENDER, async () => {
    const template = templateWithBody(
      [para('{#findings}'), para('{#evidence}'), para('{@image}'), para('{/evidence}'), para('{/findings}')].join(''),
    );
    const shown = drawings(await renderTemplateDocx(template, report(), options()));
    const [wide] = shown.filter((d) => d.name === 'a.img');
    expect(wide!.pixels.width).toBe(printPixels(wide!.shown.width));
    expect(shown.filter((d) => d.name.startsWith('c.img')).length).toBeGreaterThan(1);
  });
});

describe('tall screenshots and oversized images', () => {
  /** Four screenshots 1,000 pixels wide, about 46 megapixels made, encoded, decoded and cut. */
  const TALL = { timeout: budgetMs(46, 4_000) };
  it('cut the tallest page at the limit into at most MAX_IMAGE_SLICES parts, whatever the rounding', TALL, async () => {
    const box = { width: 640, height: 860, sliceHeight: 860 };
    for (const height of [19_999, 12_345, 9_001, 5_170]) {
      const bytes = new Uint8Array(
        await sharp({ create: { width: 1000, height, channels: 3, background: '#ffffff' } })
          .png()
          .toBuffer(),
      );
      const prepared = await prepareForPrint({ bytes, type: 'png', width: 1000, height }, box);
      expect(prepared.slices?.length, `height ${height}`).toBeGreaterThan(1);
      expect(prepared.slices!.length, `height ${height}`).toBeLessThanOrEqual(MAX_IMAGE_SLICES);
    }
  });

  it('show a stored image over the evidence limits as a placeholder, so no converter gets it', () => {
    // A PNG header saying 20,000 × 20,000 (what uploads refuse now, but an older store may hold).
    const header = Buffer.from(images[hash('a')]!.subarray(0, 33));
    header.writeUInt32BE(20_000, 16);
    header.writeUInt32BE(20_000, 20);
    expect(readEvidenceImage(new Uint8Array(header))).toEqual({ missing: 'too-large', detail: '20000 × 20000 pixels' });
  });
});
