/**
 * Text as XML 1.0 can hold it. Both renderers pass every string of a report through here: XML
 * cannot carry most control characters, U+FFFE/U+FFFF or unpaired surrogates, and a DOCX holding
 * one does not open in Word. U+E000 and U+E001 (private use, meaningless in a report) are dropped
 * too: the template renderer marks colour directives with them (template/severity-colours.ts).
 */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids are what this removes.
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uE000\uE001\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids are what this finds.
const HAS_NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uE000\uE001\uFFFE\uFFFF\uD800-\uDFFF]/;

/** Drops characters XML cannot hold (unpaired surrogates become U+FFFD). */
export function keepXmlCharacters(text: string): string {
  if (!HAS_NOT_XML.test(text)) return text;
  return text.replace(NOT_XML, (c) => (c.length === 1 && c >= '\uD800' && c <= '\uDFFF' ? '\uFFFD' : ''));
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text for an element's content or a double-quoted attribute: escaped, and XML-safe. */
export function escapeXml(text: string): string {
  return keepXmlCharacters(text).replace(/[&<>"]/g, (c) => XML_ESCAPES[c]!);
}

/**
 * A deep copy of plain data (objects, arrays, strings) with every string passed through
 * `keepXmlCharacters`; the same object when nothing needed changing, so clean reports cost one walk.
 */
export function withXmlCharactersOnly<T>(value: T): T {
  if (typeof value === 'string') return keepXmlCharacters(value) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (const [i, item] of value.entries()) {
      const v = withXmlCharactersOnly(item);
      if (v === item) continue;
      copy ??= [...value];
      copy[i] = v;
    }
    return (copy ?? value) as T;
  }
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    let copy: Record<string, unknown> | null = null;
    for (const [k, v] of Object.entries(value)) {
      const c = withXmlCharactersOnly(v);
      if (c === v) continue;
      copy ??= { ...(value as Record<string, unknown>) };
      copy[k] = c;
    }
    return (copy ?? value) as T;
  }
  return value;
}
