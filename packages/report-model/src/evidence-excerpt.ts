/**
 * Condensed scanner evidence for client documents: what a client needs to see of an asset's
 * evidence instead of whole HTTP dumps and plugin outputs.
 *
 * The same rules serve the scanners package (which knows what the scanner marked and stores the
 * result as the asset's `excerpt`) and the renderers (which derive an excerpt from `evidence` for
 * assets written by hand or imported before excerpts existed):
 *
 * - Evidence of at most `EXCERPT_CHARS` characters is its own excerpt: it is shown whole.
 * - An HTTP request keeps its request line, `Host`, the headers of the finding's topic (below),
 *   every header holding a marked string or the asset's parameter, and the body lines holding them
 *   (a short body whole).
 * - An HTTP response keeps its status line, the headers of the finding's topic (all of them when
 *   the finding is about response headers, since a missing header only shows in the whole block),
 *   `Location` on a redirect, headers holding a marked string, and the body lines holding a marked
 *   string; when none does and the finding is about an injection or an error, the lines that read
 *   like error messages. A short body is kept whole.
 * - Plugin and script output keeps its first line and the lines that carry a finding: marked
 *   strings, `name : value` lines, versions, paths, URLs, CVE ids, VULNERABLE states, script
 *   headers; output with hardly any such line keeps its first lines.
 * - A scanner's explanation of the occurrence (Burp's issue detail, compliance results) keeps its
 *   first sentences.
 *
 * Whatever is left out is said where it was, in neutral words (`[… 12 lines left out]`); a line
 * that is too long is cut around what matters with `…`. The whole excerpt is at most
 * `EXCERPT_CHARS` characters.
 */

/** The most characters an excerpt computed by these rules has. */
export const EXCERPT_CHARS = 1_500;

/** What the excerpt rules know besides the evidence text. */
export interface ExcerptHints {
  /** The finding's title: which headers matter (cookie findings keep cookies, and so on). */
  title?: string;
  /** Strings the scanner marked: payloads, echoed values, header and cookie names, extracted values. */
  marks?: readonly string[];
  /** The asset's parameter: the request lines that carry it matter. */
  parameter?: string;
}

/** One part of an asset's evidence, as the scanners write it (see `evidenceText` in the scanners package). */
export type EvidencePart =
  | { kind: 'note'; text: string }
  | { kind: 'output'; text: string }
  | { kind: 'request'; text: string }
  | { kind: 'response'; text: string };

const LINE_CHARS = 160;
const NOTE_CHARS = 420;
const REQUEST_CHARS = 480;
const SHORT_BODY = { lines: 6, chars: 400 };
const MAX_BODY_LINES = 6;
const MAX_OUTPUT_LINES = 24;

/** Headers grouped by what a finding is about; a finding whose title matches a topic keeps its headers. */
const TOPICS: ReadonlyArray<{ title: RegExp; request?: RegExp; response: RegExp }> = [
  { title: /cookie|session/i, request: /^cookie$/i, response: /^set-cookie$/i },
  {
    title: /\bcors\b|cross.origin|origin/i,
    request: /^origin$/i,
    response: /^(?:access-control-[\w-]+|vary)$/i,
  },
  {
    title:
      /header|clickjack|frame|hsts|strict.transport|content.security|\bcsp\b|sniff|xss.(?:filter|protection|auditor)|referr?er.policy|permissions.policy/i,
    response:
      /^(?:strict-transport-security|content-security-policy(?:-report-only)?|x-frame-options|x-content-type-options|x-xss-protection|referrer-policy|permissions-policy|cross-origin-[\w-]+-policy)$/i,
  },
  {
    title: /disclos|version|server|banner|powered|software|technolog|fingerprint|detect/i,
    response: /^(?:server|x-powered-by|x-aspnet(?:mvc)?-version|x-generator|via|x-runtime|x-version)$/i,
  },
  { title: /cach/i, response: /^(?:cache-control|pragma|expires|age|etag|last-modified|vary)$/i },
  { title: /charset|content.type|mime|sniff/i, response: /^(?:content-type|x-content-type-options)$/i },
  { title: /redirect/i, response: /^location$/i },
  { title: /auth|credential|password|login/i, response: /^www-authenticate$/i },
  { title: /\btls\b|\bssl\b|https|unencrypted|cleartext|transport/i, response: /^strict-transport-security$/i },
];

/** Findings about response headers: the whole header block is the evidence (an absent header shows only there). */
const ABOUT_RESPONSE_HEADERS =
  /header|clickjack|frameable|framing|hsts|strict.transport|content.security|\bcsp\b|sniff|cach|\bcors\b|cross.origin/i;
/** Findings whose response evidence is an error message or leaked content. */
const ABOUT_ERRORS = /inject|error|exception|sql|traversal|inclusion|command|disclos|xxe|deserial/i;
/** Findings whose response shows the input sent coming back. */
const ABOUT_ECHOES = /scripting|xss|inject|reflect|redirect|template|echo|input returned/i;
const ERROR_LINE = /error|exception|warning|fatal|traceback|stack ?trace|root:[^:]*:0:0:/i;
/** Words of database errors, which weigh more in the evidence of an SQL injection. */
const DATABASE_WORDS = /sql|database|query|syntax|statement|odbc|jdbc|ora-\d{4,5}|mysql|postgres|sqlite/i;

const REQUEST_LINE = /^[A-Z][A-Z-]{2,15} \S+ HTTP\/\d(?:\.\d)?$/;
const STATUS_LINE = /^HTTP\/\d(?:\.\d)? \d{3}\b/;
const SECTION_LABEL = /^(Output|Request(?: \d+)?|Response(?: \d+)?|Extracted|Reproduce with):$/;
/** An out-of-band interaction the scanners write as one paragraph of its own. */
const INTERACTION_LINE = /^Interaction: \S/;

/** Lines of plugin and script output that carry a finding. */
const TELLING_LINE: readonly RegExp[] = [
  /^\s*[A-Za-z][\w ./()'-]{0,40}?\s*:\s+\S/, // Installed version : 2.4.6, Path : /x, URL : ..., State: VULNERABLE
  /\b\d+\.\d+(?:\.\d+)+[a-z]?\b|\bv?\d+\.\d+[a-z]?\b/, // versions
  /(?:https?|ftp):\/\/|(?:^|[\s'"=])\/[\w.~-]+\/|\b[A-Za-z]:\\/, // URLs and paths
  /\bCVE-\d{4}-\d{4,}\b/i,
  /VULNERABLE|\bvulnerable\b|\bState:/,
  /^\[[^\]\n]{1,80}\]$/, // a script's header line in the Nmap evidence
];

const leftOut = (n: number, what: 'line' | 'header') => `[… ${n} ${what}${n === 1 ? '' : 's'} left out]`;

const LEFT_OUT_LINE = /^\[… (\d+) (line|header)s? left out\]$/gm;

/**
 * An excerpt with its `[… n lines left out]` markers in other words (a document's language): the
 * stored excerpt keeps the English markers, which every reader of the data recognises.
 */
export function rewordExcerptMarkers(text: string, words: (count: number, what: 'line' | 'header') => string): string {
  return text.replace(LEFT_OUT_LINE, (_, n: string, what: 'line' | 'header') => words(Number(n), what));
}

/** Splits text into lines without their carriage returns. */
function linesOf(text: string): string[] {
  return text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** The marks worth looking for: at least three characters, not a bare number. */
function usableMarks(marks: readonly string[] | undefined): string[] {
  const out = new Set<string>();
  for (const raw of marks ?? []) {
    const m = raw.trim();
    if (m.length < 3 || m.length > 300 || /^[\d.,:\s-]+$/.test(m)) continue;
    out.add(m.toLowerCase());
  }
  return [...out];
}

const patterns = new WeakMap<readonly string[], RegExp>();

/** Where the first mark occurs in a line (case-insensitive), or -1. */
function markAt(line: string, marks: readonly string[]): number {
  if (marks.length === 0) return -1;
  let re = patterns.get(marks);
  if (re === undefined) {
    // Why one expression: a line is searched once for all marks instead of once per mark.
    re = new RegExp(marks.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i');
    patterns.set(marks, re);
  }
  return line.search(re);
}

/** A line cut to `max` characters around `at` (the start when -1), with `…` where it was cut. */
export function cutLine(line: string, at = -1, max = LINE_CHARS): string {
  if (line.length <= max) return line;
  const start = at <= 0 ? 0 : Math.max(0, at - 40);
  if (start === 0) return `${line.slice(0, max - 1)}…`;
  // Why from the end then: what matters is near the end of the line, so its end is shown whole.
  if (line.length - start <= max - 1) return `…${line.slice(line.length - (max - 1))}`;
  return `…${line.slice(start, start + max - 2)}…`;
}

/** A long line of prose cut at a sentence end (else a word end) before `max` characters. */
function cutProse(line: string, max: number): string {
  if (line.length <= max) return line;
  const head = line.slice(0, max - 4);
  // Why a sentence end: a cut in the middle of a sentence can say the opposite of the whole.
  const sentence = head.match(/^.*[.!?](?=\s)/)?.[0];
  if (sentence && sentence.length >= max / 3) return `${sentence} […]`;
  const word = head.replace(/\s+\S*$/, '');
  return `${word.length >= max / 3 ? word : head}…`;
}

/** A header line cut around `at`, keeping its name. */
function cutHeader(line: string, name: string, at: number): string {
  if (line.length <= LINE_CHARS || name === '') return cutLine(line, at);
  const valueStart = line.indexOf(':') + 1;
  const value = line.slice(valueStart).trimStart();
  const offset = line.length - value.length;
  return `${name}: ${cutLine(value, at < offset ? -1 : at - offset, LINE_CHARS - name.length - 2)}`;
}

/** The first sentences of a scanner's explanation, at most `max` characters. */
function condenseNote(text: string, max: number): string {
  const lines = linesOf(text.trim());
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    const room = max - size;
    if (line.length + 1 > room) {
      if (room > 80) kept.push(cutProse(line, room - 1));
      else if (kept.length > 0 && kept[kept.length - 1] !== '') kept.push('[…]');
      else kept.push('[…]');
      break;
    }
    kept.push(line);
    size += line.length + 1;
  }
  return trimBlank(kept).join('\n');
}

/** Kept lines of a block with `[… n lines left out]` where lines were skipped. */
function withGaps(lines: readonly string[], keep: ReadonlyMap<number, string>, maxLines: number): string[] {
  const out: string[] = [];
  let skipped = 0;
  let shown = 0;
  for (let i = 0; i < lines.length; i++) {
    const kept = keep.get(i);
    if (kept === undefined || shown >= maxLines) {
      skipped++;
      continue;
    }
    if (skipped > 0) out.push(leftOut(skipped, 'line'));
    skipped = 0;
    out.push(kept);
    shown++;
  }
  if (skipped > 0) out.push(leftOut(skipped, 'line'));
  return out;
}

/** Lines without the indentation they all share (Nessus indents whole outputs). */
function dedent(lines: string[]): string[] {
  let common = Number.POSITIVE_INFINITY;
  for (const l of lines) if (l.trim() !== '') common = Math.min(common, /^[ \t]*/.exec(l)![0].length);
  return common > 0 && common !== Number.POSITIVE_INFINITY
    ? lines.map((l) => l.slice(Math.min(common, l.length)))
    : lines;
}

/** Trims blank lines at both ends of a list of lines. */
function trimBlank(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === '') a++;
  while (b > a && lines[b - 1]!.trim() === '') b--;
  return lines.slice(a, b);
}

/** The lines of a block that fit `max` characters, then one line saying how many were left out. */
function keepWithin(lines: readonly string[], max: number): string[] {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (size + line.length + 1 > max) {
      const rest = lines.slice(i).filter((l) => !l.startsWith('[… ')).length;
      if (rest > 0) out.push(leftOut(rest, 'line'));
      break;
    }
    out.push(line);
    size += line.length + 1;
  }
  return out;
}

interface Relevance {
  requestHeader: (name: string) => boolean;
  responseHeader: (name: string) => boolean;
  allResponseHeaders: boolean;
  errors: boolean;
  database: boolean;
  echoes: boolean;
}

function relevanceOf(title: string): Relevance {
  const topics = TOPICS.filter((t) => t.title.test(title));
  return {
    requestHeader: (name) => /^host$/i.test(name) || topics.some((t) => t.request?.test(name)),
    responseHeader: (name) => topics.some((t) => t.response.test(name)),
    allResponseHeaders: ABOUT_RESPONSE_HEADERS.test(title),
    errors: ABOUT_ERRORS.test(title),
    database: /sql|database/i.test(title),
    echoes: ABOUT_ECHOES.test(title),
  };
}

/** An HTTP request or response condensed by the rules above, at most `max` characters. */
function condenseHttp(
  text: string,
  kind: 'request' | 'response',
  relevance: Relevance,
  looking: readonly string[],
  echoes: readonly string[],
  max: number,
): string {
  const lines = linesOf(text);
  const blank = lines.findIndex((l) => l.trim() === '');
  const headerEnd = blank < 0 ? lines.length : blank;
  const first = lines[0] ?? '';
  const out = [cutLine(first, -1, 200)];
  const redirect = kind === 'response' && /^HTTP\/\S+ 3\d\d\b/.test(first);
  let skipped = 0;
  for (let i = 1; i < headerEnd; i++) {
    const line = lines[i]!;
    const name = line.slice(0, Math.max(0, line.indexOf(':'))).trim();
    const at = markAt(line, looking);
    const keep =
      at >= 0 ||
      (kind === 'request'
        ? relevance.requestHeader(name)
        : relevance.allResponseHeaders || relevance.responseHeader(name) || (redirect && /^location$/i.test(name)));
    if (keep) out.push(cutHeader(line, name, at));
    else skipped++;
  }
  if (skipped > 0) out.push(leftOut(skipped, 'header'));
  const body = blank < 0 ? [] : trimBlank(lines.slice(blank + 1));
  if (body.length > 0) {
    const bodyChars = body.reduce((n, l) => n + l.length + 1, 0);
    if (body.length <= SHORT_BODY.lines && bodyChars <= SHORT_BODY.chars) out.push('', ...body.map((l) => cutLine(l)));
    else {
      const keep = new Map<number, string>();
      const markLines = (marks: readonly string[]) =>
        body.forEach((line, i) => {
          const at = markAt(line, marks);
          if (at >= 0) keep.set(i, cutLine(line.trim(), markAt(line.trim(), marks)));
        });
      markLines(looking);
      // Why the request's own values next: where the scanner marked nothing, the input it sent
      // coming back in the response is what an injection finding shows.
      if (keep.size === 0 && kind === 'response' && relevance.echoes) markLines(echoes);
      if (keep.size === 0 && kind === 'response' && relevance.errors)
        for (const i of errorLines(body, relevance.database)) {
          const t = body[i]!.trim();
          keep.set(i, cutLine(t, t.search(DATABASE_WORDS) >= 0 ? t.search(DATABASE_WORDS) : t.search(ERROR_LINE)));
        }
      out.push('', ...withGaps(body, keep, MAX_BODY_LINES));
    }
  }
  return keepWithin(out, max).join('\n');
}

/** The three lines of a body that read most like an error message (database errors first for SQL findings). */
function errorLines(body: readonly string[], database: boolean): number[] {
  const scored: Array<{ i: number; score: number }> = [];
  body.forEach((line, i) => {
    if (!ERROR_LINE.test(line)) return;
    scored.push({ i, score: 1 + (database && DATABASE_WORDS.test(line) ? 2 : 0) });
  });
  return scored
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, 3)
    .map((s) => s.i)
    .sort((a, b) => a - b);
}

/** The values a request sent in its query string and form body, decoded: what may come back in the response. */
function sentValues(request: string): string[] {
  const lines = linesOf(request);
  const target = lines[0]?.split(' ')[1] ?? '';
  const blank = lines.findIndex((l) => l.trim() === '');
  const body = blank < 0 ? '' : lines.slice(blank + 1).join('&');
  const query = target.includes('?') ? target.slice(target.indexOf('?') + 1) : '';
  const values: string[] = [];
  for (const pair of `${query}&${body}`.split('&')) {
    const raw = pair.slice(pair.indexOf('=') + 1);
    if (!pair.includes('=') || raw.length < 4 || raw.length > 500) continue;
    try {
      values.push(decodeURIComponent(raw.replaceAll('+', ' ')));
    } catch {
      values.push(raw);
    }
  }
  return usableMarks(values).filter((v) => v.length >= 4);
}

/** Plugin or script output condensed to the lines that carry the finding, at most `max` characters. */
function condenseOutput(text: string, marks: readonly string[], max: number): string {
  const lines = dedent(trimBlank(linesOf(text)));
  const keep = new Map<number, string>();
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const at = markAt(line, marks);
    if (at >= 0 || TELLING_LINE.some((re) => re.test(line))) keep.set(i, cutLine(line, at));
  });
  const firstLine = lines.findIndex((l) => l.trim() !== '');
  if (firstLine >= 0) keep.set(firstLine, cutLine(lines[firstLine]!));
  if (keep.size < 3) {
    // Why the head: output without telling lines is prose or a table; its start says what it is.
    for (let i = 0; i < Math.min(lines.length, 12); i++) keep.set(i, cutLine(lines[i]!));
  }
  return keepWithin(withGaps(lines, keep, MAX_OUTPUT_LINES), max).join('\n');
}

/**
 * The excerpt of evidence parts (what the scanner wrote, in order) by the rules above: at most
 * `EXCERPT_CHARS` characters, what was left out said in neutral words.
 */
export function composeExcerpt(parts: readonly EvidencePart[], hints: ExcerptHints = {}): string {
  const relevance = relevanceOf(hints.title ?? '');
  const parameter = hints.parameter?.trim().toLowerCase();
  // Why not the parameter in responses: its name (`id`, `name`) is everywhere in HTML; its value is what was echoed.
  const marks = usableMarks(hints.marks).filter((m) => m !== parameter);
  const requestMarks = usableMarks([...(hints.marks ?? []), ...(hints.parameter ? [hints.parameter] : [])]);
  const blocks: string[] = [];
  let echoes: string[] = [];
  let used = 0;
  const budget = () => Math.max(200, EXCERPT_CHARS - used);
  for (const part of parts) {
    if (part.text.trim() === '') continue;
    let block: string;
    switch (part.kind) {
      case 'note':
        block = condenseNote(part.text, Math.min(NOTE_CHARS, budget()));
        break;
      case 'output':
        block = condenseOutput(part.text, marks, budget());
        break;
      case 'request':
      case 'response': {
        const first = part.text.slice(0, part.text.indexOf('\n') >>> 0).replace(/\r$/, '');
        const http = part.kind === 'request' ? REQUEST_LINE.test(first) : STATUS_LINE.test(first);
        // Why: Nuclei's JavaScript and network templates write code or raw bytes as their request.
        if (!http) block = condenseOutput(part.text, marks, budget());
        else if (part.kind === 'request') {
          echoes = sentValues(part.text);
          block = condenseHttp(part.text, 'request', relevance, requestMarks, [], Math.min(REQUEST_CHARS, budget()));
        } else block = condenseHttp(part.text, 'response', relevance, marks, echoes, budget());
        break;
      }
    }
    blocks.push(block);
    used += block.length + 2;
  }
  return capExcerpt(mergeGapLines(blocks.join('\n\n')));
}

const GAP_LINE = /^\[… (\d+) lines? left out\]$/;

/** Consecutive `[… n lines left out]` lines as one. */
function mergeGapLines(text: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const gap = GAP_LINE.exec(line);
    const last = out.length > 0 ? GAP_LINE.exec(out[out.length - 1]!) : null;
    if (gap && last) out[out.length - 1] = leftOut(Number(last[1]) + Number(gap[1]), 'line');
    else out.push(line);
  }
  return out.join('\n');
}

/** Text cut at a line end to at most `EXCERPT_CHARS` characters, ending with what was left out. */
export function capExcerpt(text: string, max = EXCERPT_CHARS): string {
  if (text.length <= max) return text;
  const lines = linesOf(text);
  const out: string[] = [];
  let size = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = cutLine(lines[i]!, -1, max - 40);
    if (size + line.length + 1 > max - 30) {
      out.push(leftOut(lines.length - i, 'line'));
      break;
    }
    out.push(line);
    size += line.length + 1;
  }
  return out.join('\n');
}

/**
 * Evidence text split into its parts: the sections the scanners write (`Output:`, `Request:`,
 * `Response 2:`, ...; text before the first is the scanner's explanation), or, in text without
 * them (written by hand), HTTP messages found by their first line, the rest as output.
 */
export function splitEvidence(evidence: string): EvidencePart[] {
  const lines = linesOf(evidence);
  const labelled = lines.some((l, i) => SECTION_LABEL.test(l) && (i === 0 || lines[i - 1]!.trim() === ''));
  return labelled ? splitLabelled(lines) : splitUnlabelled(lines);
}

function splitLabelled(lines: readonly string[]): EvidencePart[] {
  const parts: EvidencePart[] = [];
  let kind: EvidencePart['kind'] | 'skip' = 'note';
  let current: string[] = [];
  const flush = () => {
    const text = trimBlank(current).join('\n');
    if (kind !== 'skip' && text !== '') parts.push({ kind, text });
    current = [];
  };
  lines.forEach((line, i) => {
    const starts = i === 0 || lines[i - 1]!.trim() === '';
    if (starts && INTERACTION_LINE.test(line)) {
      flush();
      kind = 'note';
      current.push(line);
      return;
    }
    const label = SECTION_LABEL.exec(line);
    if (label && starts) {
      flush();
      const name = label[1]!;
      // Why Extracted is a note: extracted values are short and are what the scanner found.
      kind = name.startsWith('Request')
        ? 'request'
        : name.startsWith('Response')
          ? 'response'
          : name === 'Output'
            ? 'output'
            : name === 'Extracted'
              ? 'note'
              : 'skip';
      if (name === 'Extracted') current.push('Extracted:');
      return;
    }
    current.push(line);
  });
  flush();
  return parts;
}

function splitUnlabelled(lines: readonly string[]): EvidencePart[] {
  const parts: EvidencePart[] = [];
  let kind: EvidencePart['kind'] = 'output';
  let current: string[] = [];
  const flush = () => {
    const text = trimBlank(current).join('\n');
    if (text !== '') parts.push({ kind, text });
    current = [];
  };
  lines.forEach((line, i) => {
    const starts = i === 0 || lines[i - 1]!.trim() === '';
    if (starts && (REQUEST_LINE.test(line) || STATUS_LINE.test(line))) {
      if (kind === 'output' && parts.length === 0 && current.some((l) => l.trim() !== '')) kind = 'note';
      flush();
      kind = STATUS_LINE.test(line) ? 'response' : 'request';
    }
    current.push(line);
  });
  flush();
  return parts;
}

/**
 * The excerpt of an asset's evidence by the general rules: the evidence itself when it is at
 * most `EXCERPT_CHARS` characters, otherwise its parts condensed. Undefined without evidence.
 */
export function excerptOfEvidence(evidence: string | undefined, hints: ExcerptHints = {}): string | undefined {
  if (evidence === undefined || evidence.trim() === '') return undefined;
  if (evidence.length <= EXCERPT_CHARS) return evidence;
  return composeExcerpt(splitEvidence(evidence), hints);
}

/**
 * What documents show of an asset's evidence in a finding: its stored excerpt (computed at import
 * or written by a person), else one derived from its evidence by the same rules.
 */
export function assetExcerpt(
  asset: { evidence?: string; excerpt?: string; parameter?: string },
  title: string,
): string | undefined {
  if (asset.excerpt !== undefined && asset.excerpt.trim() !== '') return asset.excerpt;
  return excerptOfEvidence(asset.evidence, { title, ...(asset.parameter ? { parameter: asset.parameter } : {}) });
}
