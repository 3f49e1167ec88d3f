import { api, call } from '../api/api-client.ts';
import type { EvidenceImage } from '../api/api-types.ts';
import { evidenceReference } from '../editor/evidence-reference.ts';

/** Where an evidence image belongs: a finding, a report tab or a retest result. */
export type EvidenceOwner = { findingId: string } | { reportTabId: string } | { retestResultId: string };

/** Uploads images as evidence of `owner`; answers the saved images and their Markdown references. */
export async function uploadEvidence(
  owner: EvidenceOwner,
  files: File[],
): Promise<{ images: EvidenceImage[]; references: string[] }> {
  const images: EvidenceImage[] = [];
  for (const file of files) {
    const named =
      file.name && file.name !== 'image.png' ? file : new File([file], `pasted-${Date.now()}.png`, { type: file.type });
    const caption = named.name.replace(/\.[a-z0-9]+$/i, '');
    images.push(
      await call(api.POST('/rest/v1/evidence-images', { body: { ...owner, caption, file: named } as never })),
    );
  }
  return { images, references: images.map(evidenceReference) };
}
