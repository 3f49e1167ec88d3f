import { parseMarkdownBlocks as parseDocumentBlocks, type Block } from '@service/markdown';
import { keepXmlCharacters } from './xml-text.ts';

export {
  inlineText,
  isHyperlinkTarget,
  topHeadingLevel,
  type Block,
  type EvidenceTarget,
  type Inline,
  type TextMarks,
} from '@service/markdown';

/**
 * The blocks of a Markdown text (the documents' dialect, `@service/markdown`) as Word can hold
 * them: characters XML cannot carry are dropped first. Never throws for any input.
 */
export function parseMarkdownBlocks(markdown: string): Block[] {
  return parseDocumentBlocks(keepXmlCharacters(markdown));
}
