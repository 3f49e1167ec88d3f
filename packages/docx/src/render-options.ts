import type { EvidenceRef, ResolvedReportStyle } from '@service/report-model';

/** What both renderers take besides the report. */
export interface RenderReportOptions {
  /** The report's style with every default filled in (`resolveReportStyle`). */
  style: ResolvedReportStyle;
  /** The bytes of an evidence image, or null when it is unknown. Called once per distinct image. */
  loadImage(ref: EvidenceRef): Promise<Uint8Array | null>;
  /** The style's logo for the cover page (PNG, JPEG or GIF), when it has one. */
  logo?: Uint8Array | null;
  /** The date printed on the cover page; today when left out. */
  now?: Date;
  /**
   * Scale evidence images to print resolution and cut very tall ones into page-high parts
   * (default). `false` embeds them as uploaded (the benchmark compares the two).
   */
  scaleImages?: boolean;
}
