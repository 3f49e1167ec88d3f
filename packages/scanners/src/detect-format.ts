import { ROOT_ELEMENT_OF, type ScanFormat, type XmlScanFormat } from './scan-format.ts';
import { PROLOG_SNIFF_BYTES, sniffXmlProlog } from './sniff-xml-prolog.ts';

/** Root element → format. Burp's other XML export (proxy history, root `items`) is not a scan. */
const FORMAT_OF_ROOT: ReadonlyMap<string, XmlScanFormat> = new Map(
  Object.entries(ROOT_ELEMENT_OF).map(([format, root]) => [root, format as XmlScanFormat]),
);

const NUCLEI_KEYS = ['"template-id"', '"templateID"'];

/**
 * Whether JSON looks like Nuclei output: a result names its template (`template-id`, or the
 * legacy `templateID`) near its start, or the export is an empty array. Why: ZAP, Semgrep and
 * other tools write JSON too, and calling them Nuclei only leads to a confusing error.
 */
function looksLikeNuclei(json: Uint8Array): boolean {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(json);
  if (/^\[\s*(\]\s*)?$/.test(text)) return true;
  return NUCLEI_KEYS.some((key) => text.includes(key));
}

/**
 * Tells the format from the content, not the file name: JSON (`{` or `[` first) naming a Nuclei
 * template is Nuclei; XML is
 * recognised by its root element, after a BOM, whitespace, comments, processing instructions, a
 * DOCTYPE and even junk before the XML declaration. Null when nothing matches (also for an empty
 * file, which carries no signal at all).
 */
export function detectFormat(bytes: Uint8Array): ScanFormat | null {
  const head = bytes.subarray(0, PROLOG_SNIFF_BYTES);
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0a || head[i] === 0x0d)) i++;
  if (i >= head.length) return null;
  if (head[i] === 0x7b || head[i] === 0x5b) return looksLikeNuclei(head.subarray(i)) ? 'nuclei' : null;
  const root = sniffXmlProlog(head).rootElement;
  return root === null ? null : (FORMAT_OF_ROOT.get(root) ?? null);
}
