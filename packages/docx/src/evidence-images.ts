import { imageSize } from 'image-size';
import { EVIDENCE_IMAGE_LIMITS, type EvidenceRef, type ReportDocument } from '@service/report-model';
import type { Block, Inline } from './markdown-blocks.ts';
import type { EvidenceImage } from './evidence-image-shape.ts';
import { prepareForPrint, webpToPng, type PrintBox } from './evidence-print.ts';
import type { ReportLocale } from './messages/report-locale.ts';

/** Why an image is shown as a placeholder line instead. */
export type MissingImage = { missing: 'not-found' | 'unsupported' | 'too-large' | 'unreadable'; detail?: string };

export type LoadedEvidence = EvidenceImage | MissingImage;

export function isEvidenceImage(v: LoadedEvidence | undefined): v is EvidenceImage {
  return v !== undefined && 'bytes' in v;
}

/** An image over this is not embedded (the DOCX would grow past what mail and viewers handle). */
export const MAX_EVIDENCE_IMAGE_BYTES = 25 * 1024 * 1024;
const LOAD_CONCURRENCY = 8;

/**
 * Checks image bytes by content (never by name) and reads their size. PNG, JPEG and GIF are
 * embedded as they are; WebP and anything else are reported as unsupported here (Word and
 * LibreOffice versions in use do not all draw WebP): `loadEvidenceImages` turns WebP into PNG.
 */
export function readEvidenceImage(bytes: Uint8Array | null): LoadedEvidence {
  if (bytes === null) return { missing: 'not-found' };
  if (bytes.byteLength > MAX_EVIDENCE_IMAGE_BYTES)
    return { missing: 'too-large', detail: `${(bytes.byteLength / 1048576).toFixed(1)} MB` };
  let info: ReturnType<typeof imageSize>;
  try {
    info = imageSize(bytes);
  } catch {
    return { missing: 'unreadable' };
  }
  const type = info.type === 'png' ? 'png' : info.type === 'jpg' ? 'jpg' : info.type === 'gif' ? 'gif' : null;
  if (type === null) return { missing: 'unsupported', detail: info.type ?? 'unknown format' };
  let { width, height } = info;
  if (!width || !height) return { missing: 'unreadable' };
  // Why: an image stored before uploads were checked may be larger than scaling and the PDF converter can take.
  if (width * height > EVIDENCE_IMAGE_LIMITS.maxPixels || Math.max(width, height) > EVIDENCE_IMAGE_LIMITS.maxSide)
    return { missing: 'too-large', detail: `${width} × ${height} pixels` };
  // Why: EXIF orientations 5-8 turn the picture a quarter, so its shown width is its stored height.
  if (type === 'jpg' && info.orientation !== undefined && info.orientation >= 5) [width, height] = [height, width];
  return { bytes, type, width, height };
}

/** The placeholder line a renderer writes for an image it cannot draw, in the report's language. */
export function missingImageText(name: string, why: MissingImage, locale: ReportLocale): string {
  if (why.detail === 'not an evidence image') return locale.text('imageNotEvidence', { name });
  switch (why.missing) {
    case 'not-found':
      return locale.text('imageNotFound', { name });
    case 'unsupported':
      return locale.text('imageUnsupported', { name, detail: why.detail ?? 'format' });
    case 'too-large':
      return locale.text('imageTooLarge', { name, detail: why.detail ?? '' });
    case 'unreadable':
      return locale.text('imageUnreadable', { name });
  }
}

/** Every image a report shows: the evidence lists of tabs and findings, and `evidence:` images inside Markdown. */
export function collectEvidenceRefs(doc: ReportDocument, markdown: Iterable<Block[]>): Map<string, EvidenceRef> {
  const refs = new Map<string, EvidenceRef>();
  for (const t of doc.tabs) for (const e of t.evidence) if (!refs.has(e.sha256)) refs.set(e.sha256, e);
  for (const f of doc.findings) for (const e of f.evidence) if (!refs.has(e.sha256)) refs.set(e.sha256, e);
  for (const f of doc.findings)
    for (const e of f.retest?.evidence ?? []) if (!refs.has(e.sha256)) refs.set(e.sha256, e);
  for (const blocks of markdown) collectFromBlocks(blocks, refs);
  return refs;
}

function collectFromBlocks(blocks: readonly Block[], refs: Map<string, EvidenceRef>): void {
  for (const b of blocks) {
    if (b.kind === 'figure') addImage(b.image, refs);
    else if (b.kind === 'paragraph' || b.kind === 'heading') for (const i of b.inlines) addImage(i, refs);
    else if (b.kind === 'list') for (const item of b.items) collectFromBlocks(item, refs);
    else if (b.kind === 'quote') collectFromBlocks(b.blocks, refs);
    else if (b.kind === 'table')
      for (const row of [b.header, ...b.rows]) for (const cell of row) for (const i of cell) addImage(i, refs);
  }
}

function addImage(i: Inline, refs: Map<string, EvidenceRef>): void {
  if (i.kind !== 'image' || !i.evidence || refs.has(i.evidence.sha256)) return;
  refs.set(i.evidence.sha256, {
    sha256: i.evidence.sha256,
    fileName: i.title || `${i.evidence.sha256.slice(0, 12)}.png`,
    caption: i.alt,
  });
}

/**
 * Loads each image once (by SHA-256), a few at a time, and makes it ready for print in `box`
 * (scaled to print resolution, tall ones cut into parts, WebP as PNG) unless `scale` is false. A
 * loader that returns null for one image (unknown to it) gives that image a placeholder, as do bytes
 * that are no image; a loader that throws (its store cannot be read) fails the export.
 */
export async function loadEvidenceImages(
  refs: Map<string, EvidenceRef>,
  loadImage: (ref: EvidenceRef) => Promise<Uint8Array | null>,
  box: PrintBox,
  scale = true,
): Promise<Map<string, LoadedEvidence>> {
  const out = new Map<string, LoadedEvidence>();
  const queue = [...refs.values()];
  const worker = async () => {
    for (let ref = queue.shift(); ref !== undefined; ref = queue.shift()) {
      // Why a loader error fails the export: it means the store cannot be read (the caller answers
      // 503), and a document without its evidence must not look finished.
      const bytes = await loadImage(ref);
      let loaded = readEvidenceImage(bytes);
      if (scale && !isEvidenceImage(loaded) && loaded.missing === 'unsupported' && loaded.detail === 'webp') {
        const png = await webpToPng(bytes!);
        if (png) loaded = readEvidenceImage(png);
      }
      if (scale && isEvidenceImage(loaded)) loaded = await prepareForPrint(loaded, box);
      out.set(ref.sha256, loaded);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, queue.length) }, worker));
  return out;
}

/**
 * The size to draw an image at, in pixels (96 per inch), fitting the box and keeping its aspect ratio; never enlarged.
 */
export function fitImage(
  image: { width: number; height: number },
  maxWidth: number,
  maxHeight: number,
): { width: number; height: number } {
  const scale = Math.min(1, maxWidth / image.width, maxHeight / image.height);
  return { width: Math.max(1, Math.round(image.width * scale)), height: Math.max(1, Math.round(image.height * scale)) };
}
