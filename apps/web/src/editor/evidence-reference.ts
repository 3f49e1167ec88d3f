import type { EvidenceImage } from '../api/api-types.ts';

/**
 * The Markdown reference to an evidence image, as the Markdown format writes it
 * (docs/markdown-format.md): `![caption](evidence:sha256:<hex>?type=image/png "file name.png")`.
 */
export function evidenceReference(
  image: Pick<EvidenceImage, 'sha256' | 'contentType' | 'fileName' | 'caption'>,
): string {
  const caption = (image.caption || image.fileName).replace(/[[\]\\]/g, '\\$&');
  const title = image.fileName.replace(/["\\]/g, '\\$&');
  return `![${caption}](evidence:sha256:${image.sha256}?type=${image.contentType} "${title}")`;
}

/** Where the browser loads an evidence image from (the session reads it like any REST answer). */
export function evidenceUrl(image: Pick<EvidenceImage, 'id'>): string {
  return `/rest/v1/evidence-images/${image.id}/content`;
}
