import { exampleTemplateParts } from '../template/example-template.ts';
import { writeZip } from '../zip-archive.ts';

/**
 * A template: the example template's styles, header and footer, with `body` (WordprocessingML paragraphs) as its
 * document.
 */
export function templateWithBody(body: string, extraParts: Array<[string, string | Uint8Array]> = []): Uint8Array {
  const parts: Array<[string, string | Uint8Array]> = exampleTemplateParts().map(([name, content]) =>
    name === 'word/document.xml'
      ? [name, content.replace(/<w:body>[\s\S]*?(<w:sectPr>)/, `<w:body>${body}$1`)]
      : [name, content],
  );
  return writeZip([...parts, ...extraParts]);
}

/** A paragraph of plain text (tags included), in one run. */
export const para = (text: string) =>
  `<w:p><w:r><w:t xml:space="preserve">${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</w:t></w:r></w:p>`;
