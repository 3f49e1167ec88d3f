import sharp from 'sharp';
import { UnprocessableError } from '@service/http';
import { EVIDENCE_IMAGE_LIMITS } from '@service/report-model';

const BYTES_PER_SAMPLE: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  complex: 8,
  double: 8,
  dpcomplex: 16,
};

const grouped = (n: number) => n.toLocaleString('en-US');

function refuse(code: 'invalid_image' | 'image_too_large', message: string): never {
  throw new UnprocessableError(code, message, [{ path: '/file', message }]);
}

/**
 * Checks an uploaded image before it is kept: it must decode completely (a zero-size or truncated
 * image is refused with 422 `invalid_image`) and stay within EVIDENCE_IMAGE_LIMITS (pixels, each
 * side, decoded bytes; 422 `image_too_large` naming the limit). The header is read first, so an
 * image over the limits is refused without decoding it; the decode runs in libvips, streamed, never
 * holding the whole picture.
 */
export async function inspectEvidenceImage(file: string): Promise<{ width: number; height: number }> {
  const limits = EVIDENCE_IMAGE_LIMITS;
  const meta = await sharp(file, { limitInputPixels: false })
    .metadata()
    .catch(() => refuse('invalid_image', 'The file cannot be read as an image (its header is damaged or empty).'));
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width === 0 || height === 0) refuse('invalid_image', 'The image has no pixels (its width or height is 0).');
  if (width > limits.maxSide || height > limits.maxSide)
    refuse(
      'image_too_large',
      `The image is ${grouped(width)} × ${grouped(height)} pixels; evidence images may be at most ` +
        `${grouped(limits.maxSide)} pixels on each side.`,
    );
  if (width * height > limits.maxPixels)
    refuse(
      'image_too_large',
      `The image has ${grouped(width * height)} pixels (${grouped(width)} × ${grouped(height)}); evidence images ` +
        `may have at most ${grouped(limits.maxPixels)}.`,
    );
  const frames = meta.pages ?? 1;
  const decoded = width * height * (meta.channels ?? 4) * (BYTES_PER_SAMPLE[meta.depth ?? 'uchar'] ?? 1) * frames;
  if (decoded > limits.maxDecodedBytes)
    refuse(
      'image_too_large',
      `The image takes ${grouped(Math.ceil(decoded / 1048576))} MB decoded (${frames > 1 ? `${frames} frames, ` : ''}` +
        `${meta.channels} channels of ${meta.depth}); evidence images may take at most ` +
        `${grouped(limits.maxDecodedBytes / 1048576)} MB.`,
    );
  // Why a tiny resize: it makes libvips read every pixel row (a truncated file fails) without keeping them.
  await sharp(file, { failOn: 'truncated', limitInputPixels: limits.maxPixels, sequentialRead: true, animated: true })
    .resize(8, 8, { fit: 'inside' })
    .raw()
    .toBuffer()
    .catch(() => refuse('invalid_image', 'The image is truncated or damaged: its pixels cannot be read to the end.'));
  return { width, height };
}
