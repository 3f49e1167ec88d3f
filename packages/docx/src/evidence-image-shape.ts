/**
 * What a renderer needs to draw an image: its bytes, the DOCX picture type, and its size in pixels
 * as taken (which sets the size it is printed at; the bytes may hold fewer pixels once scaled for
 * print), and, for a very tall screenshot, the page-high parts to draw instead.
 */
export interface EvidenceImage {
  bytes: Uint8Array;
  type: 'png' | 'jpg' | 'gif';
  width: number;
  height: number;
  slices?: ImageSlice[];
}

/** One part of a tall image, top to bottom, with the size to draw it at (pixels at 96 per inch). */
export interface ImageSlice {
  bytes: Uint8Array;
  type: 'png' | 'jpg';
  display: { width: number; height: number };
}
