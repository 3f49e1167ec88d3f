import {
  assetExcerpt,
  rewordExcerptMarkers,
  type AffectedAsset,
  type EvidenceMode,
  type ReportDocumentFinding,
} from '@service/report-model';
import type { ReportLocale } from './messages/report-locale.ts';

/**
 * Which scanner evidence of affected assets a document shows, and where, by the style's evidence
 * mode: the same decisions for our layout and for customer templates.
 *
 * - `excerpt` (the default): the excerpts (each asset's stored excerpt, else one derived from its
 *   evidence) of the first EXCERPT_ASSET_LIMIT assets with evidence, in the finding. Why only a
 *   few: the assets of one finding mostly share their kind of evidence; a few examples prove it,
 *   and every asset is still listed in the finding's asset table.
 * - `full`: the whole evidence of the first EVIDENCE_ASSET_LIMIT assets, in the finding.
 * - `appendix`: the excerpts as in `excerpt`, and in an appendix after the findings the whole
 *   evidence of the first EVIDENCE_ASSET_LIMIT assets (those whose excerpt leaves nothing out
 *   need no entry), numbered and referred to from the finding.
 * - `none`: no scanner evidence.
 */

/** Excerpts a finding shows (styles `excerpt` and `appendix`). */
export const EXCERPT_ASSET_LIMIT = 3;
/** Assets whose whole evidence a document prints at most per finding (style `full`, and the appendix)... */
export const EVIDENCE_ASSET_LIMIT = 25;
/** ...at most this many characters each; what is left out is said. */
export const EVIDENCE_CHARS = 20_000;

/** One asset's evidence as a document shows it. */
export interface AssetEvidenceView {
  asset: AffectedAsset;
  /** What the finding shows: the excerpt or the whole evidence by the mode; '' when the finding shows none of it. */
  shown: string;
  /** The excerpt: what matters of the evidence (the evidence itself when it is short). */
  excerpt: string;
  /** The whole evidence. */
  full: string;
  /** Its entry in the evidence appendix (1, 2, ...), or null when it has none. */
  appendixNumber: number | null;
}

/** One entry of the evidence appendix: an asset's whole evidence and the finding it belongs to. */
export interface EvidenceAppendixEntry {
  number: number;
  findingNumber: number;
  findingTitle: string;
  asset: AffectedAsset;
  evidence: string;
}

/** What a finding shows of its assets' evidence. */
export interface FindingEvidence {
  /** Its assets that have evidence, in the finding's order. */
  assets: AssetEvidenceView[];
  /** Assets with evidence the finding does not show. */
  leftOut: number;
  /** The appendix entries of the assets the finding does not show (appendix mode), else null. */
  leftOutInAppendix: { first: number; last: number; count: number } | null;
}

export interface EvidencePlan {
  mode: EvidenceMode;
  /** Per finding, in report order. */
  findings: FindingEvidence[];
  /** The appendix entries in order; empty unless the mode is `appendix`. */
  appendix: EvidenceAppendixEntry[];
}

/** An excerpt with its `[… n lines left out]` markers (stored in English) in the document's language. */
export function excerptInLanguage(excerpt: string, locale: ReportLocale): string {
  return rewordExcerptMarkers(excerpt, (count, what) =>
    locale.plural(what === 'line' ? 'excerptLinesLeftOut' : 'excerptHeadersLeftOut', count),
  );
}

/** The evidence plan of a report's findings by the style's evidence mode. */
export function planEvidence(
  findings: readonly ReportDocumentFinding[],
  mode: EvidenceMode,
  /** The document's language, for the excerpts' `[… n lines left out]` markers (stored in English). */
  locale?: ReportLocale,
): EvidencePlan {
  const reword = (excerpt: string) => (locale ? excerptInLanguage(excerpt, locale) : excerpt);
  const appendix: EvidenceAppendixEntry[] = [];
  const shownLimit = mode === 'full' ? EVIDENCE_ASSET_LIMIT : mode === 'none' ? 0 : EXCERPT_ASSET_LIMIT;
  const planned = findings.map((f, i): FindingEvidence => {
    const assets: AssetEvidenceView[] = [];
    let leftOut = 0;
    let inAppendix: FindingEvidence['leftOutInAppendix'] = null;
    for (const asset of f.affectedAssets) {
      const full = asset.evidence ?? '';
      if (full.trim() === '') continue;
      const excerpt = reword(assetExcerpt(asset, f.title) ?? full);
      const shows = assets.length < shownLimit;
      const view: AssetEvidenceView = {
        asset,
        shown: shows ? (mode === 'full' ? full : excerpt) : '',
        excerpt,
        full,
        appendixNumber: null,
      };
      if (!shows && mode !== 'none') leftOut++;
      if (mode === 'appendix' && assets.length < EVIDENCE_ASSET_LIMIT && (!shows || excerpt !== full)) {
        view.appendixNumber = appendix.length + 1;
        appendix.push({
          number: view.appendixNumber,
          findingNumber: i + 1,
          findingTitle: f.title,
          asset,
          evidence: full,
        });
        if (!shows) {
          inAppendix ??= { first: view.appendixNumber, last: view.appendixNumber, count: 0 };
          inAppendix.last = view.appendixNumber;
          inAppendix.count++;
        }
      }
      assets.push(view);
    }
    return { assets, leftOut, leftOutInAppendix: inAppendix };
  });
  return { mode, findings: planned, appendix };
}
