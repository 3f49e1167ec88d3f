import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { LIMITS } from './limits.ts';
import type { ParseQuirk } from './parse-result.ts';
import { SCAN_FORMAT_LABELS, type ScanFormat } from './scan-format.ts';
import { ScanParseError, describePosition } from './scan-parse-error.ts';
import { PROLOG_SNIFF_BYTES, sniffXmlProlog } from './sniff-xml-prolog.ts';
import { InvalidTextError, TextStreamDecoder, isSupportedEncoding } from './text-stream-decoder.ts';
import type { WarningList } from './warning-list.ts';

/** What a format parser implements to receive the elements of its file. */
export interface XmlElementHandler {
  /**
   * An element starts. Return true to receive its text content (text and CDATA of the element and
   * its descendants) in closeElement; descendants of such an element are not dispatched.
   */
  openElement(name: string, attributes: Record<string, string>, depth: number): boolean;
  /** An element ends; `text` is '' unless openElement returned true for it. */
  closeElement(name: string, text: string, depth: number): void;
}

export interface XmlEventReaderOptions {
  format: ScanFormat;
  rootElement: string;
  handler: XmlElementHandler;
  warnings: WarningList;
}

type Parser = SaxesParser<{ xmlns: false; position: true }>;

/**
 * Streams an XML scanner export through saxes with the safety rules of SCANNERS.md section 6:
 * no entity declarations (billion laughs, external entities), bounded nesting depth, bounded
 * buffering per node, strict decoding, a required root element, and junk before the XML
 * declaration skipped with a warning. Every failure becomes a ScanParseError naming the format and,
 * where known, the line and column.
 *
 * Why no xmlns processing: it costs about a third of saxes' speed and only Nessus' `cm:` prefix
 * needs it, which the Nessus parser resolves itself from the xmlns attributes.
 */
export class XmlEventReader {
  private readonly format: ScanFormat;
  private readonly label: string;
  private readonly rootElement: string;
  private readonly handler: XmlElementHandler;
  private readonly warnings: WarningList;
  private readonly parser: Parser;

  private head: Uint8Array[] | null = [];
  private headLength = 0;
  private decoder: TextStreamDecoder | null = null;
  private lineOffset = 0;
  private quirkSeen: ParseQuirk | null = null;

  private depth = 0;
  /** depth of the element whose text is being collected; 0 when none */
  private collectDepth = 0;
  private collected = '';
  /** set by every saxes event; lets write() notice input that only grows a saxes buffer */
  private eventSeen = false;
  private quietChars = 0;

  constructor(options: XmlEventReaderOptions) {
    this.format = options.format;
    this.label = SCAN_FORMAT_LABELS[options.format];
    this.rootElement = options.rootElement;
    this.handler = options.handler;
    this.warnings = options.warnings;
    this.parser = new SaxesParser({ xmlns: false, position: true });
    this.parser.on('opentag', this.onOpenTag);
    this.parser.on('closetag', this.onCloseTag);
    this.parser.on('cdata', this.onCData);
    this.parser.on('doctype', this.onDoctype);
    this.parser.on('processinginstruction', this.onOtherEvent);
    this.parser.on('error', this.onSaxesError);
  }

  get quirk(): ParseQuirk | null {
    return this.quirkSeen;
  }

  write(bytes: Uint8Array): void {
    if (this.head !== null) {
      this.head.push(bytes);
      this.headLength += bytes.length;
      if (this.headLength >= PROLOG_SNIFF_BYTES) this.startBody();
      return;
    }
    this.feed(this.decode(bytes, false));
  }

  /**
   * Ends the document. A file that ends inside an element (an interrupted scan, a cut download) is
   * an error; with `tolerateTruncation` that error is returned instead of thrown, so the caller can
   * keep what was complete.
   */
  end(tolerateTruncation = false): ScanParseError | null {
    if (this.head !== null) this.startBody();
    this.feed(this.decode(new Uint8Array(0), true));
    const open = this.depth;
    try {
      this.run(() => this.parser.close());
    } catch (error) {
      if (tolerateTruncation && open > 0 && error instanceof ScanParseError) return error;
      throw error;
    }
    return null;
  }

  private startBody(): void {
    const head = concatBytes(this.head ?? [], this.headLength);
    this.head = null;
    const prolog = sniffXmlProlog(head);
    if (!isSupportedEncoding(prolog.encoding)) {
      throw new ScanParseError(
        this.format,
        `${this.label} file declares the encoding "${prolog.encoding}", which is not supported; save it as UTF-8.`,
      );
    }
    this.decoder = new TextStreamDecoder(prolog.encoding);
    this.lineOffset = prolog.skippedLines;
    if (prolog.skippedJunk) {
      this.quirkSeen = 'content_before_xml_declaration';
      this.warnings.add(
        `Skipped ${prolog.startOffset} bytes (${prolog.skippedLines} lines) before the ` +
          `XML declaration; strict XML parsers reject such files.`,
      );
    }
    this.feed(this.decode(head.subarray(prolog.startOffset), false));
  }

  private decode(bytes: Uint8Array, final: boolean): string {
    try {
      return (this.decoder as TextStreamDecoder).decode(bytes, final);
    } catch (error) {
      if (!(error instanceof InvalidTextError)) throw error;
      let line = this.parser.line + this.lineOffset;
      let lineStart = -1;
      for (let i = bytes.indexOf(0x0a); i >= 0 && i < error.chunkOffset; i = bytes.indexOf(0x0a, i + 1)) {
        line++;
        lineStart = i;
      }
      const column = lineStart < 0 ? this.parser.column + error.chunkOffset + 1 : error.chunkOffset - lineStart;
      throw new ScanParseError(
        this.format,
        `${this.label} file cannot be read${describePosition(line, column)}: ${error.message}.`,
        {
          line,
          column,
        },
      );
    }
  }

  private feed(text: string): void {
    if (text.length === 0) return;
    this.eventSeen = false;
    this.run(() => this.parser.write(text));
    this.quietChars = this.eventSeen ? 0 : this.quietChars + text.length;
    if (this.quietChars > LIMITS.xmlNodeChars) {
      throw this.error(
        `a single text node, tag, comment or DOCTYPE is larger than ` +
          `${LIMITS.xmlNodeChars / 1024 / 1024} MiB; the file is damaged or hostile`,
      );
    }
  }

  /** Runs a saxes call and turns anything it throws into a ScanParseError. */
  private run(action: () => void): void {
    try {
      action();
    } catch (error) {
      if (error instanceof ScanParseError) throw error;
      throw this.error(error instanceof Error ? error.message : String(error), error);
    }
  }

  private error(reason: string, cause?: unknown): ScanParseError {
    const line = this.parser.line + this.lineOffset;
    const column = Math.max(1, this.parser.column);
    return new ScanParseError(
      this.format,
      `${this.label} file is not well-formed XML${describePosition(line, column)}: ${reason}`,
      { line, column, cause },
    );
  }

  private readonly onSaxesError = (error: Error): void => {
    // Why throw: saxes would carry on after an error; a damaged export must be rejected, not guessed at.
    throw this.error(explainSaxesError(error.message.replace(/^\d+:\d+: /, '')), error);
  };

  private readonly onDoctype = (doctype: string): void => {
    this.eventSeen = true;
    const entityAt = doctype.search(/<!ENTITY/i);
    if (entityAt >= 0) {
      // saxes reports the DOCTYPE when it ends; step back to the line of the first declaration.
      let line = this.parser.line + this.lineOffset;
      for (let i = doctype.indexOf('\n', entityAt); i >= 0; i = doctype.indexOf('\n', i + 1)) line--;
      throw new ScanParseError(
        this.format,
        `${this.label} file declares XML entities in its DOCTYPE${describePosition(line)}; ` +
          'entity declarations are refused because they can expand without bound or read other files.',
        { line },
      );
    }
  };

  private readonly onOtherEvent = (): void => {
    this.eventSeen = true;
  };

  private readonly onOpenTag = (tag: SaxesTagPlain): void => {
    this.eventSeen = true;
    const depth = ++this.depth;
    if (depth > LIMITS.xmlDepth) {
      throw this.error(`elements are nested more than ${LIMITS.xmlDepth} levels deep`);
    }
    if (depth === 1 && tag.name !== this.rootElement) {
      throw new ScanParseError(
        this.format,
        `${this.label} file must start with a <${this.rootElement}> element but starts ` +
          `with <${tag.name}>${describePosition(this.parser.line + this.lineOffset)}; check ` +
          `that the right file and format were chosen.`,
        { line: this.parser.line + this.lineOffset },
      );
    }
    if (this.collectDepth !== 0) return;
    if (this.handler.openElement(tag.name, tag.attributes, depth)) {
      this.collectDepth = depth;
      this.collected = '';
      // Why toggle: with a text handler saxes builds a string for every text node, including the
      // whitespace between elements and the content of elements we ignore.
      this.parser.on('text', this.onText);
    }
  };

  private readonly onCloseTag = (tag: SaxesTagPlain): void => {
    this.eventSeen = true;
    const depth = this.depth--;
    if (this.collectDepth === 0) {
      this.handler.closeElement(tag.name, '', depth);
    } else if (depth === this.collectDepth) {
      const text = this.collected;
      this.collected = '';
      this.collectDepth = 0;
      this.parser.off('text');
      this.handler.closeElement(tag.name, text, depth);
    }
  };

  private readonly onText = (text: string): void => {
    this.eventSeen = true;
    this.appendCollected(text);
  };

  private readonly onCData = (text: string): void => {
    this.eventSeen = true;
    if (this.collectDepth !== 0) this.appendCollected(text);
  };

  private appendCollected(text: string): void {
    const room = LIMITS.collectedTextChars - this.collected.length;
    if (room > 0) this.collected += text.length <= room ? text : text.slice(0, room);
  }
}

function explainSaxesError(message: string): string {
  const unclosed = /^unclosed tag: (.+)$/.exec(message);
  if (unclosed !== null) return `the file ends inside <${unclosed[1] ?? ''}>; it looks truncated`;
  if (message.startsWith('document must contain a root element')) return 'the file contains no XML element';
  return message.replace(/\.$/, '');
}

function concatBytes(parts: Uint8Array[], length: number): Uint8Array {
  const [only] = parts;
  if (parts.length === 1 && only !== undefined) return only;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
