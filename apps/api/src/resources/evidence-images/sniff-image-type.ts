import type { EVIDENCE_CONTENT_TYPES } from '@service/report-model';

/** The image type by its first bytes (never by name or declared type), or null when it is not one we accept. */
export function sniffImageType(
  bytes: Uint8Array,
): { contentType: (typeof EVIDENCE_CONTENT_TYPES)[number]; extension: string } | null {
  const starts = (sig: number[], offset = 0) => sig.every((b, i) => bytes[offset + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { contentType: 'image/png', extension: 'png' };
  if (starts([0xff, 0xd8, 0xff])) return { contentType: 'image/jpeg', extension: 'jpg' };
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61)
    return { contentType: 'image/gif', extension: 'gif' };
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8))
    return { contentType: 'image/webp', extension: 'webp' };
  return null;
}
