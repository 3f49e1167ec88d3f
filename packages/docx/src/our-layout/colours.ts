/** `#1F3A5F` as DOCX writes colours: `1F3A5F`. */
export function docxColour(hex: string): string {
  return hex.replace(/^#/, '').toUpperCase();
}

/** Black or white, whichever reads better on `background` (WCAG relative luminance). */
export function textColourOn(background: string): string {
  const h = docxColour(background);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(h.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Contrast with white is (1.05)/(L+0.05), with black (L+0.05)/0.05; pick the larger.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? 'FFFFFF' : '1A1A1A';
}

/** A tint of a colour towards white, for row stripes and boxes (`amount` 0..1 of white). */
export function tint(hex: string, amount: number): string {
  const h = docxColour(hex);
  return [0, 2, 4]
    .map((i) => {
      const c = parseInt(h.slice(i, i + 2), 16);
      return Math.round(c + (255 - c) * amount)
        .toString(16)
        .padStart(2, '0');
    })
    .join('')
    .toUpperCase();
}
