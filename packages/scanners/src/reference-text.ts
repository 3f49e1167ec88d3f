/**
 * The references in a scanner's reference text: every URL in it, in order, once. A text that
 * names no URL (an advisory id, a book) is one reference, with its white space collapsed. Never a
 * reference per word: Nessus `see_also` is mostly URLs one a line, but some plugins write prose
 * around them ("For more information, see https://... and https://...").
 */
export function referencesInText(text: string): string[] {
  const urls: string[] = [];
  for (const match of text.matchAll(URL))
    for (const part of match[0].split(/,(?=https?:\/\/)/i)) {
      const url = withoutTrailingPunctuation(part);
      if (!urls.includes(url)) urls.push(url);
    }
  if (urls.length > 0) return urls;
  const whole = text.replace(/\s+/g, ' ').trim();
  return whole === '' ? [] : [whole];
}

/** A URL runs to the next white space, quote or angle bracket. */
const URL = /\bhttps?:\/\/[^\s"'<>]+/gi;
/** Sentence punctuation after a URL is not part of it; a closing parenthesis only when it closes none in the URL. */
function withoutTrailingPunctuation(url: string): string {
  let end = url.length;
  for (;;) {
    const last = url[end - 1];
    if (last !== undefined && '.,;:!?'.includes(last)) end--;
    else if (last === ')' && count(url.slice(0, end), ')') > count(url.slice(0, end), '(')) end--;
    else return url.slice(0, end);
  }
}

const count = (text: string, char: string) => text.split(char).length - 1;
