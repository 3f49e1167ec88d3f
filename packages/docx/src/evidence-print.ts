import { EVIDENCE_IMAGE_LIMITS } from '@service/report-model';
import type { EvidenceImage, ImageSlice } from './evidence-image-shape.ts';

/**
 * Evidence images made ready for print with sharp (libvips): scaled down to about 200 dpi at the
 * size they are printed (a 3840-pixel screenshot shown 17 cm wide needs 1340 pixels), JPEG
 * re-encoded, PNG kept lossless, metadata (EXIF, GPS) dropped, WebP turned into PNG; and a very
 * tall screenshot (a scrolled page) cut into page-high parts shown at full text width, instead of
 * one picture shrunk until its text cannot be read.
 *
 * sharp is loaded when first needed; where its prebuilt binary cannot load, images are embedded
 * as they are, as before.
 */

/** The resolution images are kept at for the size they are printed. */
export const PRINT_DPI = 150;
/** A tall image is cut into at most this many page-high parts; a taller one is scaled down to fit them. */
export const MAX_IMAGE_SLICES = 6;
/** Images up to the evidence limit are decoded for scaling; larger ones never get here (they print as a placeholder). */
const MAX_INPUT_PIXELS = EVIDENCE_IMAGE_LIMITS.maxPixels;
/** Cut into parts when fitting the whole image on a page would shrink it below this share of the text width. */
const READABLE_SHARE = 0.6;

/** Where images are drawn, in pixels at 96 per inch: the largest picture, and the height of one part of a tall one. */
export interface PrintBox {
  width: number;
  height: number;
  sliceHeight: number;
}

type Sharp = typeof import('sharp')['default'];

/** Images scaled at once: each holds a decoded image (tens of megabytes); two keep both cores busy. */
const SCALING_CONCURRENCY = 2;
let scaling = 0;
const waiting: Array<() => void> = [];

async function fewAtATime<T>(work: () => Promise<T>): Promise<T> {
  if (scaling >= SCALING_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  scaling++;
  try {
    return await work();
  } finally {
    scaling--;
    waiting.shift()?.();
  }
}
let sharpModule: Promise<Sharp | null> | null = null;

function loadSharp(): Promise<Sharp | null> {
  sharpModule ??= import('sharp').then(
    (m) => {
      const sharp = m.default;
      // Why no cache: a long-running service should not keep decoded images in libvips' cache.
      sharp.cache(false);
      return sharp;
    },
    () => null,
  );
  return sharpModule;
}

/** The number of pixels to keep across for an image shown `displayWidth` pixels (at 96 per inch) wide. */
export function printPixels(displayWidth: number): number {
  return Math.ceil((displayWidth / 96) * PRINT_DPI);
}

/**
 * A WebP image as PNG (lossless, so text in it stays sharp), or null when it cannot be decoded
 * or sharp is not available.
 */
export async function webpToPng(bytes: Uint8Array): Promise<Uint8Array | null> {
  const sharp = await loadSharp();
  if (!sharp) return null;
  try {
    return new Uint8Array(
      await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, animated: false })
        .png({ compressionLevel: 6 })
        .toBuffer(),
    );
  } catch {
    return null;
  }
}

/**
 * The image as it should be embedded for `box`: the same picture (its `width` and `height`, which
 * set its printed size, do not change) with fewer pixels when it has more than print needs, and
 * `slices` when it is a tall screenshot. Never throws: on any error the image is kept as it is.
 */
export async function prepareForPrint(image: EvidenceImage, box: PrintBox): Promise<EvidenceImage> {
  if (image.type === 'gif') return image; // may be animated; GIFs are small and rare as evidence
  if (image.width * image.height > MAX_INPUT_PIXELS) return image;
  const fullWidth = Math.min(1, box.width / image.width);
  const fitted = Math.min(fullWidth, box.height / image.height);
  const tall = fitted < READABLE_SHARE * fullWidth && image.height * fullWidth > box.sliceHeight;
  const target = printPixels(image.width * fitted);
  if (!tall && !worthScaling(image, target)) return image;
  // Why loaded only now: most reports' images need nothing, and libvips costs memory once loaded.
  const sharp = await loadSharp();
  if (!sharp) return image;
  try {
    if (tall) return await fewAtATime(() => sliceTall(sharp, image, box, fullWidth));
    const bytes = await fewAtATime(() => {
      const resized = sharp(image.bytes, { limitInputPixels: MAX_INPUT_PIXELS }).rotate().resize({ width: target });
      return image.type === 'jpg'
        ? resized.jpeg({ quality: 82, mozjpeg: true }).toBuffer()
        : resized.png({ compressionLevel: 6, palette: false }).toBuffer();
    });
    // Why keep the original when it is smaller: a screenshot of flat colours can compress better
    // at full size than resampled (smoothing adds shades); fewer bytes and more pixels both win.
    return bytes.byteLength < image.bytes.byteLength ? { ...image, bytes: new Uint8Array(bytes) } : image;
  } catch {
    return image;
  }
}

/**
 * Whether scaling to `target` pixels across is worth it. A JPEG is re-encoded when it is 10 % over
 * (its size drops steeply anyway). A PNG only when it has well over what print needs (two thirds
 * more): resampling text adds shades of grey that PNG compresses worse, so a screenshot only a
 * little over the print size comes out larger, not smaller.
 */
function worthScaling(image: EvidenceImage, target: number): boolean {
  return target < image.width * (image.type === 'jpg' ? 0.9 : 0.6);
}

/** A tall image at full text width, cut into parts of at most a page's height (at most MAX_IMAGE_SLICES of them). */
async function sliceTall(sharp: Sharp, image: EvidenceImage, box: PrintBox, fullWidth: number): Promise<EvidenceImage> {
  let scale = fullWidth;
  if (image.height * scale > box.sliceHeight * MAX_IMAGE_SLICES)
    scale = (box.sliceHeight * MAX_IMAGE_SLICES) / image.height;
  const displayWidth = image.width * scale;
  const target = printPixels(displayWidth);
  const pixelWidth = worthScaling(image, target) ? target : image.width;
  const { data, info } = await sharp(image.bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize({ width: pixelWidth })
    .raw()
    .toBuffer({ resolveWithObject: true });
  // Pixels of the scaled image per display pixel, and the pixel rows of one page-high part.
  const density = info.width / displayWidth;
  // Why the count first: rounding a part's height down could otherwise add a seventh sliver.
  const parts = Math.min(MAX_IMAGE_SLICES, Math.ceil(info.height / Math.max(1, Math.floor(box.sliceHeight * density))));
  const rowsPerSlice = Math.ceil(info.height / parts);
  const slices: ImageSlice[] = [];
  for (let top = 0; top < info.height; top += rowsPerSlice) {
    const height = Math.min(rowsPerSlice, info.height - top);
    const part = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).extract({
      left: 0,
      top,
      width: info.width,
      height,
    });
    const bytes =
      image.type === 'jpg'
        ? await part.jpeg({ quality: 82, mozjpeg: true }).toBuffer()
        : await part.png({ compressionLevel: 6, palette: false }).toBuffer();
    slices.push({
      bytes: new Uint8Array(bytes),
      type: image.type === 'jpg' ? 'jpg' : 'png',
      display: { width: Math.round(displayWidth), height: Math.max(1, Math.round(height / density)) },
    });
  }
  return { ...image, slices };
}
