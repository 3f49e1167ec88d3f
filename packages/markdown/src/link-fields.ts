import { LINK, type LinkFieldShape, type LinkFields } from '@service/report-model';

/**
 * A link in the report file is one line `- [text](target)`; which link field is the text and which
 * the target follows the shapes of the link declaration of the report model.
 */

type LinkEntry = readonly [keyof LinkFields, { shape: LinkFieldShape }];
const LINK_ENTRIES = LINK.entries as ReadonlyArray<LinkEntry>;

/** A link's line parts: its text and its target, by the shapes of the link's fields. */
export function linkLineParts(link: LinkFields): { text: string; target: string } {
  let text = '';
  let target = '';
  for (const [name, f] of LINK_ENTRIES) {
    switch (f.shape) {
      case 'title':
        text = link[name];
        break;
      case 'url':
        target = link[name];
        break;
      default:
        f.shape satisfies never;
    }
  }
  return { text, target };
}

/** A link read from its line: the text and the target, by the shapes of the link's fields. */
export function linkOfLine(text: string, target: string): LinkFields {
  const link = LINK.empty();
  for (const [name, f] of LINK_ENTRIES) {
    switch (f.shape) {
      case 'title':
        link[name] = text;
        break;
      case 'url':
        link[name] = target;
        break;
      default:
        f.shape satisfies never;
    }
  }
  return link;
}
