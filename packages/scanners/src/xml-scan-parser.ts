import { OccurrenceMerger } from './merge-occurrences.ts';
import type { CompleteFinding } from './normalized-finding.ts';
import type { CommonStats } from './parse-result.ts';
import { ROOT_ELEMENT_OF, type XmlScanFormat } from './scan-format.ts';
import type { ScanParseError } from './scan-parse-error.ts';
import { WarningList } from './warning-list.ts';
import { XmlEventReader, type XmlElementHandler } from './xml-event-reader.ts';

/** What every ParseResult carries besides its format and stats. */
export interface XmlParseOutcome {
  findings: CompleteFinding[];
  warnings: string[];
  scannerVersion?: string;
}

/**
 * The part the Nessus, Burp and Nmap parsers share: a safe XML reader for the format's root
 * element, the occurrence merger, warnings, and the common end-of-file bookkeeping. Subclasses
 * only map elements (openElement / closeElement) and add their own stats.
 */
export abstract class XmlScanParser implements XmlElementHandler {
  protected readonly warnings = new WarningList();
  protected readonly merger = new OccurrenceMerger();
  /** the version the file states; may become known after the first findings */
  protected scannerVersion: string | undefined;
  private readonly reader: XmlEventReader;

  constructor(private readonly format: XmlScanFormat) {
    this.reader = new XmlEventReader({
      format,
      rootElement: ROOT_ELEMENT_OF[format],
      handler: this,
      warnings: this.warnings,
    });
  }

  write(bytes: Uint8Array): void {
    this.reader.write(bytes);
  }

  abstract openElement(name: string, attributes: Record<string, string>, depth: number): boolean;
  abstract closeElement(name: string, text: string, depth: number): void;

  /** Ends the document, stamps every finding's source and fills the common stats. */
  protected finish(stats: CommonStats, acceptTruncation?: (error: ScanParseError) => boolean): XmlParseOutcome {
    const truncation = this.reader.end(acceptTruncation !== undefined);
    if (truncation !== null && !acceptTruncation?.(truncation)) throw truncation;
    const findings = this.merger.findings();
    const scanner = this.format;
    const version = this.scannerVersion;
    for (const finding of findings) finding.source = version === undefined ? { scanner } : { scanner, version };
    stats.findings = findings.length;
    stats.occurrences = this.merger.occurrences;
    stats.quirk = this.reader.quirk;
    const outcome: XmlParseOutcome = { findings, warnings: this.warnings.toArray() };
    if (version !== undefined) outcome.scannerVersion = version;
    return outcome;
  }
}
