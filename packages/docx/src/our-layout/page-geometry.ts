import type { PageSize } from '@service/report-model';
import type { PrintBox } from '../evidence-print.ts';

/** Page size and margins of our layout, in twips (1/1440 inch); pictures are sized in pixels at 96 per inch. */
export interface PageGeometry {
  width: number;
  height: number;
  margin: { top: number; bottom: number; left: number; right: number; header: number; footer: number };
  /** Width between the margins, in twips. */
  textWidth: number;
  /** The largest picture that fits between the margins with room for its caption, in pixels. */
  maxImage: { width: number; height: number };
  /** Where evidence images are drawn: the largest picture, and one page-high part of a tall screenshot. */
  printBox: PrintBox;
}

const SIZES: Record<PageSize, { width: number; height: number }> = {
  A4: { width: 11906, height: 16838 },
  Letter: { width: 12240, height: 15840 },
};

export function pageGeometry(size: PageSize): PageGeometry {
  const { width, height } = SIZES[size] ?? SIZES.A4;
  const margin = { top: 1304, bottom: 1247, left: 1134, right: 1134, header: 567, footer: 567 };
  const textWidth = width - margin.left - margin.right;
  const textHeight = height - margin.top - margin.bottom;
  const maxImage = {
    width: Math.floor((textWidth / 1440) * 96),
    height: Math.floor(((textHeight * 0.62) / 1440) * 96),
  };
  return {
    width,
    height,
    margin,
    textWidth,
    maxImage,
    printBox: { ...maxImage, sliceHeight: Math.floor(((textHeight * 0.88) / 1440) * 96) },
  };
}
