import { readFileSync } from 'node:fs';
import path from 'node:path';
import PizZip from 'pizzip';

const EXAMPLE = path.resolve(import.meta.dirname, '../../../../library/report-styles/word-template-example.docx');

/**
 * The shipped example Word template with its document text changed: `replace` maps text of
 * word/document.xml to its replacement. Gives valid templates with other bytes (and broken ones).
 */
export function wordTemplateVariant(replace: Record<string, string>): Uint8Array {
  const zip = new PizZip(readFileSync(EXAMPLE));
  let xml = zip.file('word/document.xml')!.asText();
  for (const [from, to] of Object.entries(replace)) {
    if (!xml.includes(from)) throw new Error(`word/document.xml of the example has no ${from}`);
    xml = xml.replace(from, to);
  }
  zip.file('word/document.xml', xml);
  return zip.generate({ type: 'uint8array', compression: 'DEFLATE' });
}
