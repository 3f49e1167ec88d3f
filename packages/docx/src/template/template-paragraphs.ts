/**
 * The text of each paragraph of a template part, with where it starts in the part's whole text
 * (all `<w:t>` contents in order, as docxtemplater counts offsets), so a problem found at an
 * offset or with a tag can be shown with the paragraph a person sees in Word.
 */
export interface PartParagraphs {
  texts: string[];
  starts: number[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : ENTITIES[e]!,
  );
}

export function partParagraphs(xml: string): PartParagraphs {
  const texts: string[] = [];
  const starts: number[] = [];
  let offset = 0;
  for (const p of xml.matchAll(/<w:p\b[^>]*?(?:\/>|>([\s\S]*?)<\/w:p>)/g)) {
    let text = '';
    for (const t of (p[1] ?? '').matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)) text += decode(t[1]!);
    starts.push(offset);
    texts.push(text);
    offset += text.length;
  }
  return { texts, starts };
}

/** The paragraph at a text offset, or ''. */
export function paragraphAt(p: PartParagraphs, offset: number): string {
  let lo = 0;
  let hi = p.starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (p.starts[mid]! <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  // Why skip empty ones: several paragraphs start at the same offset when some are empty.
  while (found >= 0 && found < p.texts.length - 1 && p.texts[found] === '' && p.starts[found + 1] === p.starts[found])
    found++;
  return found >= 0 ? p.texts[found]!.trim() : '';
}

/** The first paragraph whose text holds `needle`, or ''. */
export function paragraphWith(p: PartParagraphs, needle: string): string {
  return p.texts.find((t) => t.includes(needle))?.trim() ?? '';
}
