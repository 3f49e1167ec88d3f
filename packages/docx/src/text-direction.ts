/**
 * Whether text reads right to left: its first strong character is Hebrew, Arabic, Syriac, Thaana,
 * NKo or another RTL script (Unicode bidi classes R and AL, approximated by their blocks). Such
 * paragraphs are written as bidirectional, so Word and LibreOffice order and align them right.
 */
const STRONG = /[A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

export function isRightToLeft(text: string): boolean {
  const m = STRONG.exec(text.length > 2000 ? text.slice(0, 2000) : text);
  return m !== null && RTL.test(m[0]);
}

/** Whether text holds any right-to-left character. */
export function hasRightToLeft(text: string): boolean {
  return RTL.test(text);
}
