import { linkOfParts, linkParts, type EvidenceRef, type ReportDocumentLink } from '@service/report-model';
import { escapeInline, readInlineLink, writeDestination } from './inline-text.ts';
import { trimEndBlanks } from './space-tab.ts';

/**
 * One evidence image reference per line, as a Markdown image whose target names the image by the
 * SHA-256 of its bytes: `![caption](evidence:sha256:<hex>?type=image/png "file name.png")`.
 * One link per line as a list item: `- [title](https://...)`.
 */

export function evidenceLine(e: EvidenceRef): string {
  const type = e.contentType ? `?type=${e.contentType}` : '';
  return (
    `![${escapeInline(e.caption, 'text')}](evidence:sha256:${e.sha256}${type} ` +
    `"${escapeInline(e.fileName, 'title')}")`
  );
}

export function linkLine(link: ReportDocumentLink): string {
  const { text, target } = linkParts(link);
  return `- [${escapeInline(text, 'text')}](${writeDestination(target)})`;
}

const EVIDENCE_TARGET = /^evidence:sha256:([0-9a-fA-F]{64})(?:\?type=(\S+))?$/;

export type ReadLine<T> =
  | { value: T; warning?: { column: number; message: string } }
  | { error: { column: number; expected: string; message: string } };

export function readEvidenceLine(line: string): ReadLine<EvidenceRef> {
  const trimmed = trimEndBlanks(line);
  if (!trimmed.startsWith('!['))
    return {
      error: {
        column: 1,
        expected: 'an evidence image `![caption](evidence:sha256:<hex> "file name")`',
        message: 'expected an evidence image `![caption](evidence:sha256:<hex> "file name")`',
      },
    };
  const link = readInlineLink(trimmed, 1);
  if ('error' in link)
    return {
      error: { column: link.at + 1, expected: link.error, message: `expected ${link.error} in the evidence image` },
    };
  if (link.end !== trimmed.length)
    return {
      error: {
        column: link.end + 1,
        expected: 'the end of the line',
        message: 'expected one evidence image per line, found more text after it',
      },
    };
  const target = EVIDENCE_TARGET.exec(link.destination);
  if (!target) {
    return {
      error: {
        column: trimmed.indexOf('](') + 3,
        expected: 'evidence:sha256:<64 hex digits>',
        message:
          `the image target must be \`evidence:sha256:\` and the 64 hex digits of the ` +
          `image's SHA-256, found "${link.destination.slice(0, 80)}"`,
      },
    };
  }
  if (link.title === null)
    return {
      error: {
        column: link.end,
        expected: 'the file name in quotes',
        message: 'expected the image\'s file name in quotes after the target: `(evidence:sha256:<hex> "name.png")`',
      },
    };
  const value: EvidenceRef = { sha256: target[1]!.toLowerCase(), fileName: link.title, caption: link.text };
  if (target[2] !== undefined) value.contentType = target[2] as EvidenceRef['contentType'] & string;
  return { value };
}

export function readLinkLine(line: string): ReadLine<ReportDocumentLink> {
  const trimmed = trimEndBlanks(line);
  const m = /^[-*+][ \t]+/.exec(trimmed);
  if (!m || trimmed[m[0].length] !== '[')
    return {
      error: {
        column: 1,
        expected: 'a link `- [title](https://...)`',
        message: 'expected a link as a list item: `- [title](https://...)`',
      },
    };
  const link = readInlineLink(trimmed, m[0].length);
  if ('error' in link)
    return { error: { column: link.at + 1, expected: link.error, message: `expected ${link.error} in the link` } };
  if (link.end !== trimmed.length)
    return {
      error: {
        column: link.end + 1,
        expected: 'the end of the line',
        message: 'expected one link per line, found more text after it',
      },
    };
  const value = linkOfParts(link.text, link.destination);
  return link.title === null
    ? { value }
    : {
        value,
        warning: {
          column: 1,
          message: 'a link title in quotes is not kept (a report link has a title and a URL only)',
        },
      };
}
