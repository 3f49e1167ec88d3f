import { referencesInText } from './reference-text.ts';
import { LIMITS } from './limits.ts';
import { OccurrenceMerger, type FindingSeed } from './merge-occurrences.ts';
import type { Cvss } from '@service/report-model';
import type { Asset, CompleteOccurrence, Evidence, Interaction } from './normalized-finding.ts';
import { normalizeCve, parseCweId, toStringList } from './normalize-identifiers.ts';
import { cvssVersionOfVector, normalizeCvssVector, parseCvssScore } from '@service/report-model';
import type { NucleiParseResult, NucleiStats } from './parse-result.ts';
// Why clampText, not retainText: JSON.parse returns independent strings, so no copy is needed.
import { clampText } from './retain-text.ts';
import { ScanParseError, describePosition } from './scan-parse-error.ts';
import { isSeverity, type Severity } from '@service/report-model';
import { InvalidTextError, TextStreamDecoder } from './text-stream-decoder.ts';
import { WarningList } from './warning-list.ts';

type JsonObject = Record<string, unknown>;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/**
 * Nuclei JSON output → normalized findings, streaming. Rules U1–U6 of EXPECTED.json and SCANNERS.md
 * section 5: empty input → no findings; `[` first → JSON array (-je), split into elements as they
 * arrive; otherwise JSON lines (-jsonl), read line by line so a bad line is reported with its
 * number. Field aliases of old Nuclei versions are accepted; findings group by template-id +
 * matcher-name.
 */
export class NucleiParser {
  private readonly warnings = new WarningList();
  private readonly merger = new OccurrenceMerger();
  private readonly decoder = new TextStreamDecoder('utf-8');
  private readonly stats: NucleiStats = {
    occurrences: 0,
    findings: 0,
    quirk: null,
    inputShape: 'empty',
    records: 0,
    recordsWithoutAsset: 0,
  };
  private readonly assets = new Map<string, Asset>();
  private readonly hostnames = new Map<string, string>();

  private shape: 'unknown' | 'jsonl' | 'json_array' = 'unknown';
  private buffer = '';
  /** lines completely consumed before `buffer` starts */
  private line = 1;

  // JSON array splitting state
  private arrayState: 'open' | 'items' | 'closed' = 'open';
  private expectComma = false;
  private depth = 0;
  private elementLine = 0;
  /** text of the unfinished record from earlier chunks */
  private pieces: string[] = [];
  private piecesLength = 0;
  private inString = false;
  /** backslashes that ended the previous chunk inside a string (only their parity matters) */
  private trailingBackslashes = 0;

  write(bytes: Uint8Array): void {
    this.accept(this.decode(bytes, false));
  }

  end(): NucleiParseResult {
    this.accept(this.decode(new Uint8Array(0), true));
    if (this.shape === 'jsonl' && this.buffer.trim() !== '') {
      this.handleLine(this.buffer, this.line);
      this.buffer = '';
    }
    if (this.shape === 'json_array' && (this.arrayState !== 'closed' || this.depth !== 0)) {
      throw new ScanParseError(
        'nuclei',
        `Nuclei JSON array ends early at line ${this.line}: the closing ] is missing; the file looks truncated.`,
        {
          line: this.line,
        },
      );
    }
    this.stats.inputShape = this.shape === 'unknown' ? 'empty' : this.shape;
    const findings = this.merger.findings();
    this.stats.findings = findings.length;
    this.stats.occurrences = this.merger.occurrences;
    return { format: 'nuclei', findings, warnings: this.warnings.toArray(), stats: this.stats };
  }

  private decode(bytes: Uint8Array, final: boolean): string {
    try {
      return this.decoder.decode(bytes, final);
    } catch (error) {
      if (!(error instanceof InvalidTextError)) throw error;
      let line = this.line;
      for (let i = 0; i < this.buffer.length; i++) if (this.buffer.charCodeAt(i) === NEWLINE) line++;
      for (let i = bytes.indexOf(NEWLINE); i >= 0 && i < error.chunkOffset; i = bytes.indexOf(NEWLINE, i + 1)) line++;
      throw new ScanParseError('nuclei', `Nuclei file cannot be read${describePosition(line)}: ${error.message}.`, {
        line,
      });
    }
  }

  private accept(text: string): void {
    if (text.length === 0) return;
    if (this.shape === 'unknown') {
      const first = /\S/.exec(text);
      if (first === null) {
        for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.line++;
        return;
      }
      this.shape = first[0] === '[' ? 'json_array' : 'jsonl';
    }
    if (this.shape === 'jsonl') this.acceptLines(text);
    else this.acceptArray(text);
  }

  private acceptLines(text: string): void {
    let start = 0;
    let newline = text.indexOf('\n');
    if (this.buffer !== '') {
      // Why not prepend the carried part to the chunk: that would copy the whole chunk once more.
      if (newline < 0) {
        this.buffer += text;
        start = text.length;
      } else {
        this.handleLine(this.buffer + text.slice(0, newline), this.line);
        this.buffer = '';
        this.line++;
        start = newline + 1;
        newline = text.indexOf('\n', start);
      }
    }
    for (; newline >= 0; newline = text.indexOf('\n', start)) {
      this.handleLine(text.slice(start, newline), this.line);
      this.line++;
      start = newline + 1;
    }
    if (start < text.length) this.buffer += text.slice(start);
    if (this.buffer.length > LIMITS.jsonRecordChars) {
      throw new ScanParseError(
        'nuclei',
        `Nuclei line ${this.line} is longer than ${LIMITS.jsonRecordChars / 1024 / 1024} ` +
          `MiB; the file is damaged or not JSON lines.`,
        {
          line: this.line,
        },
      );
    }
  }

  private handleLine(text: string, line: number): void {
    const trimmed = text.trim();
    if (trimmed === '') return;
    this.handleRecord(this.parseJson(trimmed, line, text.length - text.trimStart().length), line);
  }

  private acceptArray(text: string): void {
    const n = text.length;
    let i = 0;
    // Why pieces instead of joining chunks as they come: a record spanning many chunks would be
    // copied again with every chunk.
    let elementStart = this.depth > 0 ? 0 : -1;
    while (i < n) {
      if (this.depth === 0) {
        const c = text.charCodeAt(i);
        if (c === NEWLINE) this.line++;
        else if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0xfeff) {
          // whitespace between elements
        } else if (this.arrayState === 'open') {
          if (c !== OPEN_BRACKET) throw this.arrayError(`expected [ but found ${JSON.stringify(text[i])}`);
          this.arrayState = 'items';
        } else if (this.arrayState === 'closed') {
          throw this.arrayError(`unexpected ${JSON.stringify(text[i])} after the closing ]`);
        } else if (c === CLOSE_BRACKET) {
          this.arrayState = 'closed';
        } else if (c === COMMA) {
          if (!this.expectComma) throw this.arrayError('unexpected ,');
          this.expectComma = false;
        } else if (this.expectComma) {
          throw this.arrayError(`expected , or ] after a record but found ${JSON.stringify(text[i])}`);
        } else if (c === OPEN_BRACE) {
          elementStart = i;
          this.elementLine = this.line;
          this.depth = 1;
        } else {
          throw this.arrayError(`expected a JSON object but found ${JSON.stringify(text[i])}`);
        }
        i++;
        continue;
      }
      if (this.inString) {
        const end = this.findStringEnd(text, i);
        if (end < 0) {
          this.trailingBackslashes =
            countBackslashesBefore(text, n, i) + (allBackslashes(text, i, n) ? this.trailingBackslashes : 0);
          i = n;
          break;
        }
        this.inString = false;
        this.trailingBackslashes = 0;
        i = end + 1;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.inString = true;
        this.trailingBackslashes = 0;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        this.depth++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (--this.depth === 0) {
          const tail = text.slice(elementStart, i + 1);
          const record = this.pieces.length === 0 ? tail : this.pieces.join('') + tail;
          this.pieces = [];
          this.piecesLength = 0;
          this.handleRecord(this.parseJson(record, this.elementLine, 0), this.elementLine);
          this.expectComma = true;
        }
      } else if (c === NEWLINE) {
        this.line++;
      }
      i++;
    }
    if (this.depth > 0) {
      const piece = text.slice(elementStart);
      this.pieces.push(piece);
      this.piecesLength += piece.length;
      if (this.piecesLength > LIMITS.jsonRecordChars) {
        throw this.arrayError(`a record is larger than ${LIMITS.jsonRecordChars / 1024 / 1024} MiB`);
      }
    }
  }

  /** Index of the quote closing the current JSON string, searching `text` from `from`; -1 if not in it. */
  private findStringEnd(text: string, from: number): number {
    for (let quote = text.indexOf('"', from); quote >= 0; quote = text.indexOf('"', quote + 1)) {
      let backslashes = countBackslashesBefore(text, quote, from);
      // A run of backslashes reaching the start of this chunk continues the previous chunk's run.
      if (quote - backslashes === from) backslashes += this.trailingBackslashes;
      if (backslashes % 2 === 0) return quote;
    }
    return -1;
  }

  private arrayError(reason: string): ScanParseError {
    return new ScanParseError('nuclei', `Nuclei JSON array is malformed at line ${this.line}: ${reason}.`, {
      line: this.line,
    });
  }

  private parseJson(text: string, line: number, indent: number): JsonObject {
    let value: unknown;
    try {
      // Why: U+0000 cannot be stored in PostgreSQL text; scanner text keeps going with U+FFFD in its
      // place (raw NUL bytes and \u0000 escapes alike). The check keeps the common path fast.
      value =
        text.includes('\u0000') || text.includes('\\u0000')
          ? JSON.parse(text.replaceAll('\u0000', '\uFFFD'), replaceNul)
          : JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const position = Number(/position (\d+)/.exec(reason)?.[1] ?? Number.NaN);
      let errorLine = line;
      let column: number | undefined;
      if (Number.isFinite(position)) {
        let lineStart = -1;
        for (let k = text.indexOf('\n'); k >= 0 && k < position; k = text.indexOf('\n', k + 1)) {
          errorLine++;
          lineStart = k;
        }
        column = position - lineStart + (lineStart < 0 ? indent : 0);
      }
      const hint = this.shape === 'jsonl' ? ' Nuclei output must be JSON lines (-jsonl) or a JSON array (-je).' : '';
      // Why: a pretty-printed JSON document (ZAP, Semgrep, ... reports) fails on its first line `{`;
      // saying that it is no Nuclei export helps more than the JSON error.
      const notNuclei =
        this.shape === 'jsonl' && this.stats.records === 0 && /^[{[]\s*$/.test(text.split('\n', 1)[0]!.trim())
          ? 'The file is not a Nuclei export: it holds one JSON document spread over several lines, while '
          : '';
      if (notNuclei !== '')
        throw new ScanParseError(
          'nuclei',
          `${notNuclei}Nuclei writes one JSON result per line (-jsonl) or a JSON array of results (-je). ` +
            'Reports of other tools (ZAP, Semgrep, ...) cannot be imported as Nuclei.',
          { line, cause: error },
        );
      throw new ScanParseError(
        'nuclei',
        `Nuclei record is not valid JSON${describePosition(errorLine, column)}: ${reason}.${hint}`,
        {
          line: errorLine,
          column,
          cause: error,
        },
      );
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ScanParseError(
        'nuclei',
        `Nuclei record at line ${line} is not a JSON object; is this a Nuclei JSON export?`,
        { line },
      );
    }
    return value as JsonObject;
  }

  private handleRecord(record: JsonObject, line: number): void {
    this.stats.records++;
    const templateId = stringOf(record['template-id']) ?? stringOf(record.templateID);
    if (templateId === undefined) {
      throw new ScanParseError(
        'nuclei',
        `Nuclei record at line ${line} has no template-id, so the file is not a Nuclei export` +
          `${describeKeys(record)}; reports of other tools (ZAP, Semgrep, ...) cannot be imported as Nuclei.`,
        { line },
      );
    }
    const info = objectOf(record.info);
    const severityRaw = stringOf(info.severity) ?? 'unknown';
    const severity = severityOf(severityRaw);
    if (severity === null)
      this.warnings.add(`Record at line ${line} (${templateId}) has severity "${severityRaw}"; treated as low.`);
    const matcherName = stringOf(record['matcher-name']) ?? stringOf(record.matcher_name) ?? '';

    const matchedAt = stringOf(record['matched-at']) ?? stringOf(record.matched);
    const host = stringOf(record.host);
    // Why: some exports write the url as `/http://host/`.
    const url = stringOf(record.url)?.replace(/^\/+(?=[a-z][a-z0-9+.-]*:\/\/)/i, '');
    const ip = stringOf(record.ip);
    const hostSource = host ?? matchedAt ?? url ?? ip;
    if (hostSource === undefined) this.stats.recordsWithoutAsset++;

    const occurrence: CompleteOccurrence = {
      asset: this.assetOf(matchedAt ?? host ?? url ?? ip ?? '', hostSource, ip),
      severity: severity ?? 'low',
    };
    if (matchedAt !== undefined) occurrence.url = clampText(matchedAt, LIMITS.urlChars);
    const port = Number(record.port);
    if (record.port !== undefined && record.port !== '' && Number.isInteger(port) && port >= 0 && port <= 65_535)
      occurrence.port = port;
    const path = stringOf(record.path);
    if (path !== undefined) occurrence.path = clampText(path, LIMITS.urlChars);
    const scheme = stringOf(record.scheme);
    if (scheme !== undefined) occurrence.service = clampText(scheme, 100);
    const timestamp = stringOf(record.timestamp);
    const time = timestamp === undefined ? Number.NaN : Date.parse(timestamp);
    if (!Number.isNaN(time)) occurrence.firstSeen = new Date(time).toISOString();
    const evidence = evidenceOf(record);
    if (evidence !== null) occurrence.evidence = evidence;

    const classification = objectOf(info.classification);
    const cves: string[] = [];
    for (const raw of toStringList(classification['cve-id'])) {
      const cve = normalizeCve(raw);
      if (cve !== null) cves.push(cve);
    }
    const cwes: number[] = [];
    for (const raw of toStringList(classification['cwe-id'])) {
      const cwe = parseCweId(raw);
      if (cwe !== null) cwes.push(cwe);
    }

    const groupKey = `${templateId}|${matcherName}`;
    // Why references only once: they come from the template, the same in every record of it.
    const references = this.merger.has(groupKey) ? undefined : referencesOf(info.reference);
    this.merger.add(
      groupKey,
      occurrence,
      clampText(severityRaw, 100),
      () => seedFinding(record, info, classification, templateId, matcherName, occurrence.severity, severityRaw),
      { cves, cwes, references },
    );
  }

  /** One shared asset object per (id, host, ip). */
  private assetOf(id: string, hostSource: string | undefined, ip: string | undefined): Asset {
    const key = `${id}\u0000${hostSource ?? ''}\u0000${ip ?? ''}`;
    let asset = this.assets.get(key);
    if (asset === undefined) {
      asset = { id: clampText(id, LIMITS.assetIdChars) };
      if (hostSource !== undefined) {
        const hostname = this.hostnameOf(hostSource);
        if (hostname !== '') asset.hostname = clampText(hostname, 255);
      }
      if (ip !== undefined) asset.ip = clampText(ip, 64);
      if (this.assets.size < 100_000) this.assets.set(key, asset);
    }
    return asset;
  }

  private hostnameOf(value: string): string {
    let hostname = this.hostnames.get(value);
    if (hostname === undefined) {
      hostname = hostnameOf(value);
      if (this.hostnames.size < 100_000) this.hostnames.set(value, hostname);
    }
    return hostname;
  }
}

function seedFinding(
  record: JsonObject,
  info: JsonObject,
  classification: JsonObject,
  templateId: string,
  matcherName: string,
  severity: Severity,
  severityRaw: string,
): FindingSeed {
  const metadata = objectOf(info.metadata);
  const impact = stringOf(info.impact);
  const remediation = stringOf(info.remediation) ?? stringOf(metadata.resolution);
  const seed: FindingSeed = {
    source: { scanner: 'nuclei' },
    ruleId: clampText(templateId, LIMITS.keyChars),
    title: clampText(stringOf(info.name) ?? templateId, LIMITS.titleChars),
    severity,
    severityRaw: clampText(severityRaw, 100),
    confidence: null,
    description: clampText(stringOf(info.description)?.trim() ?? '', LIMITS.textChars),
    impact: impact === undefined ? null : clampText(impact.trim(), LIMITS.textChars),
    remediation: remediation === undefined ? null : clampText(remediation.trim(), LIMITS.textChars),
    cvss: cvssOf(classification),
  };
  const type = stringOf(record.type);
  if (type !== undefined) seed.checkType = clampText(type, 100);
  if (matcherName !== '') seed.matcherName = clampText(matcherName, 500);
  const tags = [...new Set(toStringList(info.tags).map((t) => t.trim().toLowerCase()))].filter((t) => t !== '');
  if (tags.length > 0) seed.tags = tags.slice(0, LIMITS.tags).map((t) => clampText(t, 100));
  const cpes = toStringList(classification.cpe).filter((c) => c.trim() !== '');
  if (cpes.length > 0) seed.cpes = cpes.slice(0, LIMITS.cpes).map((c) => clampText(c.trim(), 300));
  const epss = classification['epss-score'];
  if (typeof epss === 'number' && epss >= 0 && epss <= 1) seed.epssScore = epss;
  return seed;
}

function severityOf(raw: string): Severity | null {
  const value = raw.trim().toLowerCase();
  if (isSeverity(value)) return value;
  if (value === 'unknown') return 'low'; // EXPECTED rule U3, as DefectDojo and secureCodeBox do
  if (value === 'informational') return 'info';
  return null;
}

function cvssOf(classification: JsonObject): Cvss[] {
  const vector = stringOf(classification['cvss-metrics']);
  const score = parseCvssScore(
    typeof classification['cvss-score'] === 'number'
      ? classification['cvss-score']
      : stringOf(classification['cvss-score']),
  );
  if (vector === undefined) return [];
  const version = cvssVersionOfVector(vector);
  if (version === null) return [];
  return [{ version, vector: clampText(normalizeCvssVector(vector, version), 300), baseScore: score }];
}

/** `reference` is a list, a string of `- url` lines (old templates) or a comma-separated string. */
function referencesOf(value: unknown): string[] {
  const items = typeof value === 'string' ? value.split('\n') : toStringList(value);
  const references: string[] = [];
  for (const item of items)
    for (const reference of referencesInText(item.trim().replace(/^-\s+/, '')))
      if (!references.includes(reference)) references.push(clampText(reference, LIMITS.referenceChars));
  return references;
}

function evidenceOf(record: JsonObject): Evidence | null {
  const evidence: Evidence = {};
  let empty = true;
  const request = stringOf(record.request);
  if (request !== undefined) {
    evidence.request = clampText(request, LIMITS.evidenceChars);
    empty = false;
  }
  const response = stringOf(record.response);
  if (response !== undefined) {
    evidence.response = clampText(response, LIMITS.evidenceChars);
    empty = false;
  }
  const curl = stringOf(record['curl-command']);
  if (curl !== undefined) {
    evidence.curl = clampText(curl, LIMITS.evidenceChars);
    empty = false;
  }
  const extracted = toStringList(record['extracted-results'] ?? record.extracted_results);
  if (extracted.length > 0) {
    evidence.extracted = extracted
      .slice(0, LIMITS.extractedValues)
      .map((value) => clampText(value, LIMITS.evidenceChars));
    empty = false;
  }
  const matchedLine = record['matched-line'];
  const matchedLines = Array.isArray(matchedLine)
    ? toStringList(matchedLine)
    : typeof matchedLine === 'string'
      ? [matchedLine]
      : [];
  if (matchedLines.length > 0) {
    evidence.output = clampText(matchedLines.join('\n'), LIMITS.evidenceChars);
    empty = false;
  }
  const interaction = objectOf(record.interaction);
  const protocol = stringOf(interaction.protocol);
  if (protocol !== undefined) {
    const event: Interaction = { type: clampText(protocol, 50) };
    const origin = stringOf(interaction['remote-address']);
    if (origin !== undefined) event.originIp = clampText(origin, 64);
    const time = stringOf(interaction.timestamp);
    if (time !== undefined) event.time = clampText(time, 64);
    const lookupType = stringOf(interaction['q-type']);
    if (lookupType !== undefined) event.lookupType = clampText(lookupType, 32);
    const lookupHost = stringOf(interaction['full-id']);
    if (lookupHost !== undefined) event.lookupHost = clampText(lookupHost, 500);
    const rawRequest = stringOf(interaction['raw-request']);
    if (rawRequest !== undefined) event.request = clampText(rawRequest, LIMITS.evidenceChars);
    const rawResponse = stringOf(interaction['raw-response']);
    if (rawResponse !== undefined) event.response = clampText(rawResponse, LIMITS.evidenceChars);
    evidence.interactions = [event];
    empty = false;
  }
  return empty ? null : evidence;
}

/** Host name of a Nuclei target: a URL, `host:port`, a bare host name or an IP address. */
export function hostnameOf(value: string): string {
  const target = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    try {
      return new URL(target).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    } catch {
      return hostnameOf(target.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''));
    }
  }
  const authority = target.replace(/[/?#].*$/, '');
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    return (end < 0 ? authority.slice(1) : authority.slice(1, end)).toLowerCase();
  }
  const colon = authority.indexOf(':');
  // Why only one colon: a bare IPv6 address has several and no port.
  if (colon >= 0 && colon === authority.lastIndexOf(':')) return authority.slice(0, colon).toLowerCase();
  return authority.toLowerCase();
}

/** ` (its keys: a, b, c)`, naming what the record holds instead of Nuclei's fields. */
function describeKeys(record: JsonObject): string {
  const keys = Object.keys(record).slice(0, 5);
  return keys.length === 0 ? '' : ` (its keys: ${keys.map((k) => clampText(k, 40)).join(', ')})`;
}

function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function objectOf(value: unknown): JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : {};
}

/** Number of backslashes directly before `end`, not looking before `from`. */
function countBackslashesBefore(text: string, end: number, from: number): number {
  let count = 0;
  for (let k = end - 1; k >= from && text.charCodeAt(k) === BACKSLASH; k--) count++;
  return count;
}

function allBackslashes(text: string, from: number, end: number): boolean {
  return countBackslashesBefore(text, end, from) === end - from;
}

/** JSON.parse reviver: U+0000 in any string becomes U+FFFD. */
function replaceNul(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}
