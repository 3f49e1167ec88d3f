/** Where an image of a report's Markdown points: one of the report's evidence images, by content. */
export interface EvidenceTarget {
  sha256: string;
  contentType: string | null;
}

const EVIDENCE_TARGET = /^evidence:sha256:([0-9a-fA-F]{64})(?:\?type=([a-z]+\/[a-z0-9.+-]+))?$/;

/**
 * The image an `evidence:sha256:<hex>[?type=...]` target names (the form the Markdown format
 * writes, docs/markdown-format.md), or null for any other target.
 */
export function parseEvidenceTarget(src: string): EvidenceTarget | null {
  const m = EVIDENCE_TARGET.exec(src.trim());
  return m ? { sha256: m[1]!.toLowerCase(), contentType: m[2] ?? null } : null;
}
