import {
  emptyDocumentTab,
  emptyFinding,
  ReportDocumentSchema,
  type AffectedAsset,
  type EvidenceRef,
  type LibraryItemRef,
  type ReportDocument,
  type ReportDocumentFinding,
  type ReportDocumentLink,
  type ReportDocumentTab,
  type RetestAsset,
  type RetestResult,
} from '@service/report-model';
import { DocumentPositions } from './document-positions.ts';
import { readEvidenceLine, readLinkLine, type ReadLine } from './evidence-line.ts';
import { FieldReader } from './field-reader.ts';
import { FINDING_SECTIONS, REPORT_FINDING_KEYS, readFindingFields, unknownKeyWarning } from './finding-fields.ts';
import { findFrontMatterEnd } from './finding-file.ts';
import { headingDisplay, readHeading } from './heading-title.ts';
import { MarkdownFormatError, type SourcePosition } from './markdown-format-error.ts';
import { MARKDOWN_LIMITS } from './markdown-limits.ts';
import { readYamlBlock, type YamlBlock } from './read-yaml-block.ts';
import {
  ASSETS_SECTION,
  EVIDENCE_SECTION,
  REPORT_FINDING_SECTION_LIST,
  REPORT_FORMAT,
  REPORT_PART_LIST,
  REPORT_PARTS,
  reportSectionNamed,
  type ReportFindingSection,
} from './report-layout.ts';
import {
  readProjectFields,
  readReportFields,
  REPORT_FIELD_PARTS,
  REPORT_FRONT_MATTER_KEYS,
  REPORT_PROJECT_KEYS,
} from './report-front-matter.ts';
import {
  readRetestAsset,
  readRetestInfo,
  readRetestYaml,
  RETEST_ASSETS_SECTION,
  RETEST_EVIDENCE_SECTION,
  RETEST_SECTION,
} from './retest-section.ts';
import { SchemaCheck } from './schema-problem.ts';
import { readSourceText, type SourceText } from './source-text.ts';
import { readTabValue, TAB_FIELD_ENTRIES, TAB_HEADING_FIELD, TAB_KEYS, TAB_TEXT_FIELD } from './tab-block.ts';
import { decodeFencedField, findFenceClose, readFenceOpening, readTextField, type FenceOpening } from './text-field.ts';

export interface ImportReportMarkdownOptions {
  /** Largest accepted file in UTF-8 bytes; default MARKDOWN_LIMITS.reportBytes (64 MiB). */
  maxBytes?: number;
}

export interface ImportedReportMarkdown {
  /** The report without any ids: the caller creates new rows and re-links evidence by SHA-256. */
  document: ReportDocument;
  /** Things the reader ignored or decided, one sentence each with its line ("line 3, column 1: unknown key ..."). */
  warnings: string[];
}

const reportCheck = new SchemaCheck(ReportDocumentSchema);
const FRONT_MATTER_KEYS = ['format', ...REPORT_FRONT_MATTER_KEYS, 'client', 'project', 'style', 'template', 'retest'];
const REF_KEYS = ['key', 'name'];
const ASSET_KEYS = ['host', 'ip', 'port', 'protocol', 'service', 'url', 'parameter'];
const PARTS_LIST = REPORT_PART_LIST;

/**
 * Reads a report file written by exportReportMarkdown, or edited by a person, into a
 * ReportDocument without ids. Throws MarkdownFormatError (line, column, expected) on anything it
 * cannot accept, including values the report model refuses; size and count limits are checked
 * before and while reading.
 */
export function importReportMarkdown(
  text: string | Uint8Array,
  options: ImportReportMarkdownOptions = {},
): ImportedReportMarkdown {
  const source = readSourceText(text, options.maxBytes ?? MARKDOWN_LIMITS.reportBytes, 'report file');
  return new ReportReader(source).read();
}

class ReportReader {
  private readonly warnings: string[] = [];
  private readonly positions = new DocumentPositions();
  /** The front matter says the report is a retest, so its findings may have retest sections. */
  private isRetest = false;

  constructor(private readonly source: SourceText) {}

  read(): ImportedReportMarkdown {
    const { source } = this;
    const close = findFrontMatterEnd(source, 'a report file');
    const front = readYamlBlock(source, 1, close, 'the front matter');
    this.positions.mount('', front, (path) => (path.startsWith('/client/') ? '/client' : path));
    const meta = this.readMetadata(new FieldReader(front, 'the front matter'), front.value ?? {});
    this.isRetest = meta.retest !== undefined;
    const doc: ReportDocument = { ...meta, tabs: [], links: [], findings: [] };

    let i = close + 1;
    let lastPart = -1;
    for (;;) {
      i = this.skipBlank(i);
      if (i >= source.lineCount) break;
      const h = readHeading(source.line(i));
      if (h?.level !== 1) {
        const found = h ? `, found \`${'#'.repeat(h.level)} ${h.text}\`` : '';
        this.fail(i, 1, `a part heading ${PARTS_LIST}`, `expected a part heading ${PARTS_LIST}${found}`);
      }
      const part = REPORT_PARTS.find((p) => p.toLowerCase() === h.text.toLowerCase());
      if (!part)
        this.fail(i, 1, `a part heading ${PARTS_LIST}`, `unknown part \`# ${h.text}\`: expected ${PARTS_LIST}`);
      const index = REPORT_PARTS.indexOf(part);
      if (index <= lastPart) {
        this.fail(
          i,
          1,
          `parts in the order ${PARTS_LIST.replaceAll(' or ', ', ')}, each once`,
          `\`# ${part}\` ` +
            `${index === lastPart ? 'appears twice' : `must come before \`# ${REPORT_PARTS[lastPart]}\``}: ` +
            `the parts are, in this order, ${REPORT_PARTS.map((p) => `\`# ${p}\``).join(', ')}`,
        );
      }
      lastPart = index;
      i = this.readPart(part, i, doc);
    }

    const problem = reportCheck.firstProblem(doc);
    if (problem) {
      const readable = problem.path
        .slice(1)
        .split('/')
        .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
        .join('')
        .replace(/^\./, '');
      throw new MarkdownFormatError(
        this.positions.find(problem.path),
        `a valid \`${readable}\``,
        `\`${readable}\` ${problem.message}`,
        { path: problem.path },
      );
    }
    return { document: doc, warnings: this.warnings };
  }

  private fail(line: number, column: number, expected: string, problem?: string, path?: string): never {
    throw new MarkdownFormatError({ line: line + 1, column }, expected, problem, { path });
  }

  private skipBlank(i: number): number {
    while (i < this.source.lineCount && this.source.isBlank(i)) i++;
    return i;
  }

  /** A line that ends a text field: a level-1 or level-2 heading, or a finding section heading. */
  private readonly endsField = (line: number): boolean => {
    if (this.source.firstChar(line) !== 35) return false;
    const h = readHeading(this.source.line(line));
    return h !== null && (h.level <= 2 || (h.level === 3 && reportSectionNamed(h.text) !== undefined));
  };

  private headingAt(i: number): { level: number; text: string } | null {
    return i < this.source.lineCount && this.source.firstChar(i) === 35 ? readHeading(this.source.line(i)) : null;
  }

  private fenceAt(i: number, info: string): FenceOpening | null {
    if (i >= this.source.lineCount || this.source.firstChar(i) !== 96) return null;
    const opening = readFenceOpening(this.source.line(i));
    return opening && opening.info === info ? opening : null;
  }

  private readPart(part: string, at: number, doc: ReportDocument): number {
    const field = REPORT_FIELD_PARTS.find((p) => p.part === part);
    this.positions.set(`/${field?.name ?? part.toLowerCase()}`, this.source.position(at));
    if (field) return this.readFieldPart(field, at, doc);
    if (part === 'Tabs') return this.readTabs(at + 1, doc.tabs);
    if (part === 'Links') return this.readLinks(at + 1, doc.links);
    return this.readFindings(at + 1, doc.findings);
  }

  /** A part holding one Markdown field of the report (`# Summary`). */
  private readFieldPart(field: (typeof REPORT_FIELD_PARTS)[number], at: number, doc: ReportDocument): number {
    const what = `the ${field.part.toLowerCase()}`;
    const text = readTextField(this.source, at + 1, 'markdown', this.endsField, what);
    doc[field.name] = text.value;
    const h = this.headingAt(text.next);
    if (h && h.level !== 1) {
      this.fail(
        text.next,
        1,
        `the next part ${PARTS_LIST}`,
        `the ${field.part} part holds only ${what}; a \`${'#'.repeat(h.level)} \` ` +
          `heading here is not allowed (to use such headings in ${what}, put it in a ` +
          `\`\`\`\`markdown fence)`,
      );
    }
    return text.next;
  }

  private readYaml(open: number, opening: FenceOpening, what: string): { block: YamlBlock; next: number } {
    const close = findFenceClose(this.source, open, opening.length);
    if (opening.option !== '')
      this.fail(
        open,
        1,
        'a line ```yaml',
        `the YAML block of ${what} takes no fence option, found "${opening.option}"`,
      );
    const block = readYamlBlock(this.source, open + 1, close, `the YAML block of ${what}`);
    return { block, next: close + 1 };
  }

  private readTabs(from: number, tabs: ReportDocumentTab[]): number {
    let i = from;
    for (;;) {
      i = this.skipBlank(i);
      const h = this.headingAt(i);
      if (i >= this.source.lineCount || h?.level === 1) return i;
      if (h?.level !== 2)
        this.fail(
          i,
          1,
          'a tab heading `## ...`',
          h
            ? `expected a tab heading \`## ...\`, found \`${'#'.repeat(h.level)} ${h.text}\``
            : 'expected a tab heading `## ...` (text in the Tabs part belongs to a tab)',
        );
      if (tabs.length >= MARKDOWN_LIMITS.tabs)
        this.fail(i, 1, `at most ${MARKDOWN_LIMITS.tabs} tabs`, `a report holds at most ${MARKDOWN_LIMITS.tabs} tabs`);
      const path = `/tabs/${tabs.length}`;
      this.positions.set(path, this.source.position(i));
      const tab = emptyDocumentTab(h.text);
      let next = this.skipBlank(i + 1);
      const yaml = this.fenceAt(next, 'yaml');
      if (yaml) {
        const read = this.readYaml(next, yaml, `tab "${h.text}"`);
        this.positions.mount(path, read.block);
        const r = new FieldReader(read.block, `the YAML block of tab "${h.text}"`, path);
        const m = r.mapping(read.block.value, '', `the YAML block of tab "${h.text}"`);
        for (const key of Object.keys(m))
          if (!TAB_KEYS.includes(key))
            this.warnings.push(unknownKeyWarning(r, `/${key}`, key, `the YAML block of tab "${h.text}"`, TAB_KEYS));
        const fields = tab as Record<string, unknown>;
        for (const [name, f] of TAB_FIELD_ENTRIES) {
          if (m[name] === undefined) continue;
          fields[name] =
            name === TAB_HEADING_FIELD
              ? this.titleFromYaml(r, m[name], h.text, i)
              : readTabValue(r, name, f.shape, m[name]);
        }
        next = read.next;
      } else this.positions.set(`${path}/title`, this.source.position(i));
      const content = readTextField(this.source, next, 'markdown', this.endsField, `the content of tab "${h.text}"`);
      this.positions.set(`${path}/content`, this.source.position(next < this.source.lineCount ? next : i));
      (tab as Record<string, unknown>)[TAB_TEXT_FIELD] = content.value;
      i = content.next;
      const after = this.headingAt(i);
      if (after?.level === 3 && reportSectionNamed(after.text) === EVIDENCE_SECTION)
        i = this.readEvidence(i + 1, tab.evidence, `${path}/evidence`);
      const end = this.headingAt(i);
      if (end && end.level === 3)
        this.fail(
          i,
          1,
          'the next tab `## ...`, `### Evidence` or the next part',
          `a tab holds its content and its \`### Evidence\` only; \`### ${end.text}\` belongs to a finding`,
        );
      tabs.push(tab);
    }
  }

  private titleFromYaml(r: FieldReader, value: unknown, headingText: string, headingLine: number): string {
    const title = r.string(value, '/title', 'title');
    if (headingText !== title && headingText !== headingDisplay(title)) {
      this.warnings.push(
        `line ${headingLine + 1}, column 1: the heading reads "${headingText}" but the ` +
          `\`title\` in its YAML block is ${JSON.stringify(title)}; the \`title\` key wins`,
      );
    }
    return title;
  }

  private readLines<T>(
    from: number,
    out: T[],
    path: string,
    limit: number,
    what: string,
    read: (line: string) => ReadLine<T>,
  ): number {
    let i = from;
    for (;;) {
      i = this.skipBlank(i);
      if (i >= this.source.lineCount || this.endsField(i)) return i;
      const result = read(this.source.line(i));
      if ('error' in result) this.fail(i, result.error.column, result.error.expected, result.error.message);
      if (out.length >= limit) this.fail(i, 1, `at most ${limit} ${what}`, `at most ${limit} ${what} are allowed here`);
      if (result.warning)
        this.warnings.push(`line ${i + 1}, column ${result.warning.column}: ${result.warning.message}`);
      this.positions.set(`${path}/${out.length}`, this.source.position(i));
      out.push(result.value);
      i++;
    }
  }

  private readEvidence(from: number, out: EvidenceRef[], path: string): number {
    return this.readLines(from, out, path, MARKDOWN_LIMITS.evidence, 'evidence images', readEvidenceLine);
  }

  private readLinks(from: number, links: ReportDocumentLink[]): number {
    const next = this.readLines(from, links, '/links', MARKDOWN_LIMITS.links, 'links', readLinkLine);
    const h = this.headingAt(next);
    if (h && h.level !== 1)
      this.fail(
        next,
        1,
        `links \`- [title](url)\` or the next part ${PARTS_LIST}`,
        `the Links part holds only links \`- [title](url)\`; expected a link or \`# ` +
          `Findings\`, found \`${'#'.repeat(h.level)} ${h.text}\``,
      );
    return next;
  }

  private readFindings(from: number, findings: ReportDocumentFinding[]): number {
    let i = from;
    for (;;) {
      i = this.skipBlank(i);
      const h = this.headingAt(i);
      if (i >= this.source.lineCount || h?.level === 1) return i;
      if (h?.level !== 2) {
        const found = h ? `, found \`${'#'.repeat(h.level)} ${h.text}\`` : '';
        this.fail(
          i,
          1,
          'a finding heading `## ...`',
          `expected a finding heading \`## ...\`${findings.length === 0 ? ' after `# Findings`' : ''}${found}`,
        );
      }
      if (findings.length >= MARKDOWN_LIMITS.findings)
        this.fail(
          i,
          1,
          `at most ${MARKDOWN_LIMITS.findings} findings`,
          `a report holds at most ${MARKDOWN_LIMITS.findings} findings`,
        );
      i = this.readFinding(i, h.text, findings);
    }
  }

  private readFinding(headingLine: number, headingText: string, findings: ReportDocumentFinding[]): number {
    const path = `/findings/${findings.length}`;
    const what = `finding "${headingText}"`;
    this.positions.set(path, this.source.position(headingLine));
    const open = this.skipBlank(headingLine + 1);
    const yaml = this.fenceAt(open, 'yaml');
    if (!yaml)
      this.fail(
        open,
        1,
        "the finding's ```yaml block",
        `expected the \`\`\`yaml block of ${what} (its severity, status, CVSS, ...) right after its heading`,
      );
    const read = this.readYaml(open, yaml, what);
    this.positions.mount(path, read.block);
    const r = new FieldReader(read.block, `the YAML block of ${what}`, path);
    const { fields, unknown } = readFindingFields(r, read.block.value, REPORT_FINDING_KEYS, this.warnings);
    for (const [key] of unknown)
      this.warnings.push(unknownKeyWarning(r, `/${key}`, key, `the YAML block of ${what}`, REPORT_FINDING_KEYS));
    let title = headingText;
    if (fields.title !== undefined) title = this.titleFromYaml(r, fields.title, headingText, headingLine);
    else this.positions.set(`${path}/title`, this.source.position(headingLine));
    const finding: ReportDocumentFinding = { ...emptyFinding(title, fields.severity), ...fields, title, evidence: [] };

    const seen = new Map<ReportFindingSection, number>();
    const retest: {
      result?: Omit<RetestResult, 'assets' | 'evidence'>;
      assets: RetestAsset[];
      evidence: EvidenceRef[];
    } = { assets: [], evidence: [] };
    let i = read.next;
    for (;;) {
      i = this.skipBlank(i);
      const h = this.headingAt(i);
      if (i >= this.source.lineCount || (h && h.level <= 2)) break;
      const section = h?.level === 3 ? reportSectionNamed(h.text) : undefined;
      if (!section) {
        this.fail(
          i,
          1,
          `a section heading ${REPORT_FINDING_SECTION_LIST}`,
          `expected a section of ${what} (${REPORT_FINDING_SECTION_LIST}) or the next finding \`## ...\``,
        );
      }
      if (seen.has(section))
        this.fail(
          i,
          1,
          `one \`### ${section}\` section`,
          `\`### ${section}\` appears twice in ${what} (first on line ${seen.get(section)! + 1})`,
        );
      seen.set(section, i);
      if (section === RETEST_SECTION || section === RETEST_ASSETS_SECTION || section === RETEST_EVIDENCE_SECTION) {
        if (!this.isRetest)
          this.fail(
            i,
            1,
            `a section heading ${REPORT_FINDING_SECTION_LIST}`,
            `\`### ${section}\` belongs to a finding of a retest, and this report is none (its front matter has ` +
              'no `retest`)',
          );
        this.positions.set(`${path}/retest`, this.source.position(i));
        if (section === RETEST_SECTION) {
          const result = this.readRetestResult(i, path, what);
          retest.result = result.value;
          i = result.next;
        } else if (section === RETEST_ASSETS_SECTION) {
          this.positions.set(`${path}/retest/assets`, this.source.position(i));
          i = this.readRetestAssets(i + 1, retest.assets, `${path}/retest/assets`, what);
        } else {
          this.positions.set(`${path}/retest/evidence`, this.source.position(i));
          i = this.readEvidence(i + 1, retest.evidence, `${path}/retest/evidence`);
        }
      } else if (section === ASSETS_SECTION) {
        this.positions.set(`${path}/affectedAssets`, this.source.position(i));
        i = this.readAssets(i + 1, finding.affectedAssets, `${path}/affectedAssets`, what);
      } else if (section === EVIDENCE_SECTION) {
        this.positions.set(`${path}/evidence`, this.source.position(i));
        i = this.readEvidence(i + 1, finding.evidence, `${path}/evidence`);
      } else {
        const field = FINDING_SECTIONS.find((f) => f.heading === section)!.field;
        this.positions.set(`${path}/${field}`, this.source.position(i));
        const text = readTextField(this.source, i + 1, 'markdown', this.endsField, `the ${field} of ${what}`);
        finding[field] = text.value;
        i = text.next;
      }
    }
    if (retest.result) finding.retest = { ...retest.result, assets: retest.assets, evidence: retest.evidence };
    else if (seen.has(RETEST_ASSETS_SECTION) || seen.has(RETEST_EVIDENCE_SECTION)) {
      const at = seen.get(RETEST_ASSETS_SECTION) ?? seen.get(RETEST_EVIDENCE_SECTION)!;
      this.fail(
        at,
        1,
        `a \`### ${RETEST_SECTION}\` section`,
        `${what} has retest assets or evidence but no \`### ${RETEST_SECTION}\` section with its status`,
      );
    }
    findings.push(finding);
    return i;
  }

  /** `### Retest`: its YAML block (status, who set it, risk acceptance), then the retest notes. */
  private readRetestResult(
    headingLine: number,
    path: string,
    what: string,
  ): { value: Omit<RetestResult, 'assets' | 'evidence'>; next: number } {
    const open = this.skipBlank(headingLine + 1);
    const yaml = this.fenceAt(open, 'yaml');
    if (!yaml)
      this.fail(
        open,
        1,
        "the retest's ```yaml block",
        `expected the \`\`\`yaml block of the retest of ${what} (its \`status\`, ...) right after \`### ${RETEST_SECTION}\``,
      );
    const read = this.readYaml(open, yaml, `the retest of ${what}`);
    this.positions.mount(`${path}/retest`, read.block);
    const fields = readRetestYaml(
      new FieldReader(read.block, `the retest of ${what}`, `${path}/retest`),
      read.block.value,
      this.warnings,
    );
    this.positions.set(
      `${path}/retest/notes`,
      this.source.position(read.next < this.source.lineCount ? read.next : open),
    );
    const notes = readTextField(this.source, read.next, 'markdown', this.endsField, `the retest notes of ${what}`);
    return { value: { ...fields, notes: notes.value }, next: notes.next };
  }

  private readRetestAssets(from: number, assets: RetestAsset[], path: string, what: string): number {
    return this.readAssetList(from, assets, path, what, {
      noun: 'retest asset',
      block: "a retest asset's ```yaml block",
      expected:
        `expected a retest asset of ${what} as a \`\`\`yaml block (host, port, ..., status), optionally ` +
        'followed by its retest evidence in a ```text block',
      read: (r, block) => readRetestAsset(r, block.value, this.warnings),
      fences: [
        {
          info: 'text',
          key: 'evidence',
          label: 'the retest evidence',
          set: (asset, text) => {
            asset.evidence = text;
          },
        },
      ],
    });
  }

  private readAssets(from: number, assets: AffectedAsset[], path: string, what: string): number {
    return this.readAssetList(from, assets, path, what, {
      noun: 'affected asset',
      block: "an asset's ```yaml block",
      expected:
        `expected an affected asset of ${what} as a \`\`\`yaml block (host, port, url, ` +
        `...), optionally followed by its evidence in a \`\`\`text block and its excerpt in an \`\`\`excerpt block`,
      read: (r, block) => this.readAsset(r, block),
      // Its evidence (```text) and the excerpt documents show of it (```excerpt), each when it has one.
      fences: [
        {
          info: 'text',
          key: 'evidence',
          label: 'the evidence of an affected asset',
          set: (asset, text) => {
            asset.evidence = text;
          },
        },
        {
          info: 'excerpt',
          key: 'excerpt',
          label: 'the evidence excerpt of an affected asset',
          set: (asset, text) => {
            asset.excerpt = text;
          },
        },
      ],
    });
  }

  /**
   * A list of assets (a finding's affected assets, or a retest's): each a ```yaml block, then the
   * fenced blocks of its text fields in their order, each when it has one.
   */
  private readAssetList<T>(
    from: number,
    assets: T[],
    path: string,
    what: string,
    kind: {
      noun: string;
      block: string;
      expected: string;
      read: (r: FieldReader, block: YamlBlock) => T;
      fences: ReadonlyArray<{ info: string; key: string; label: string; set: (asset: T, text: string) => void }>;
    },
  ): number {
    const article = /^[aeiou]/.test(kind.noun) ? 'an' : 'a';
    let i = from;
    for (;;) {
      i = this.skipBlank(i);
      if (i >= this.source.lineCount || this.endsField(i)) return i;
      const yaml = this.fenceAt(i, 'yaml');
      if (!yaml) this.fail(i, 1, kind.block, kind.expected);
      if (assets.length >= MARKDOWN_LIMITS.assets)
        this.fail(
          i,
          1,
          `at most ${MARKDOWN_LIMITS.assets} ${kind.noun}s`,
          `a finding holds at most ${MARKDOWN_LIMITS.assets} ${kind.noun}s`,
        );
      const assetPath = `${path}/${assets.length}`;
      const read = this.readYaml(i, yaml, `${article} ${kind.noun} of ${what}`);
      this.positions.mount(assetPath, read.block);
      const asset = kind.read(new FieldReader(read.block, `the ${kind.noun}`, assetPath), read.block);
      assets.push(asset);
      i = this.skipBlank(read.next);
      for (const fence of kind.fences) {
        const open = this.fenceAt(i, fence.info);
        if (!open) continue;
        const close = findFenceClose(this.source, i, open.length);
        this.positions.set(`${assetPath}/${fence.key}`, this.source.position(i));
        fence.set(asset, decodeFencedField(this.source, i, close, open.option, `${fence.label} of ${what}`));
        i = this.skipBlank(close + 1);
      }
    }
  }

  private readAsset(r: FieldReader, block: YamlBlock): AffectedAsset {
    const m = r.mapping(block.value, '', 'an affected asset');
    const asset: AffectedAsset = {};
    for (const key of Object.keys(m))
      if (!ASSET_KEYS.includes(key))
        this.warnings.push(unknownKeyWarning(r, `/${key}`, key, 'an affected asset', ASSET_KEYS));
    for (const key of ['host', 'ip', 'protocol', 'service', 'url', 'parameter'] as const)
      if (m[key] !== undefined) asset[key] = r.string(m[key], `/${key}`, key);
    if (m.port !== undefined) {
      if (m.port !== null && !(typeof m.port === 'number' && Number.isInteger(m.port)))
        r.fail(
          '/port',
          'a port number or null',
          `\`port\` must be a whole number from 0 to 65535 or null, found ${JSON.stringify(m.port)}`,
        );
      asset.port = m.port as number | null;
    }
    // Why rebuild: keys in the order the model and the exporter use, whatever order the file had.
    return Object.fromEntries(
      ASSET_KEYS.filter((k) => k in asset).map((k) => [k, asset[k as keyof AffectedAsset]]),
    ) as AffectedAsset;
  }

  private readMetadata(r: FieldReader, value: unknown): Omit<ReportDocument, 'tabs' | 'links' | 'findings'> {
    const m = r.mapping(value, '', 'the front matter');
    for (const key of Object.keys(m))
      if (!FRONT_MATTER_KEYS.includes(key))
        this.warnings.push(unknownKeyWarning(r, `/${key}`, key, 'the front matter', FRONT_MATTER_KEYS));
    if (m.format === undefined)
      this.warnings.push(`line 1, column 1: the front matter has no \`format\` key; read as ${REPORT_FORMAT}`);
    else if (m.format !== REPORT_FORMAT)
      r.fail(
        '/format',
        `format: ${REPORT_FORMAT}`,
        `this file's format is ${JSON.stringify(m.format)}; this version of the service reads \`${REPORT_FORMAT}\``,
      );
    const fields = readReportFields(r, m);
    if (m.client === undefined) r.fail('', 'a `client` key', 'the front matter needs the `client` name');
    if (m.project === undefined)
      r.fail('', 'a `project` mapping', 'the front matter needs the `project` (with its `name`)');
    const client =
      typeof m.client === 'object' && m.client !== null && !Array.isArray(m.client)
        ? (m.client as Record<string, unknown>).name
        : m.client;
    const project = r.mapping(m.project, '/project', '`project`');
    for (const key of Object.keys(project))
      if (!REPORT_PROJECT_KEYS.includes(key))
        this.warnings.push(unknownKeyWarning(r, `/project/${key}`, key, '`project`', REPORT_PROJECT_KEYS));
    return {
      ...fields,
      client: { name: r.string(client, '/client', 'client') },
      project: readProjectFields(r, project),
      style: this.readRef(r, m.style, '/style'),
      template: this.readRef(r, m.template, '/template'),
      ...(m.retest !== undefined ? { retest: readRetestInfo(r, m.retest, this.warnings) } : {}),
    };
  }

  private readRef(r: FieldReader, value: unknown, path: string): LibraryItemRef | null {
    if (value === undefined || value === null) return null;
    const m = r.mapping(value, path, `\`${path.slice(1)}\``);
    for (const key of Object.keys(m))
      if (!REF_KEYS.includes(key))
        this.warnings.push(unknownKeyWarning(r, `${path}/${key}`, key, `\`${path.slice(1)}\``, REF_KEYS));
    if (m.name === undefined)
      r.fail(
        path,
        `a \`name\` in \`${path.slice(1)}\``,
        `\`${path.slice(1)}\` needs a \`name\` (and a \`key\` when it comes from the global library)`,
      );
    return { key: r.stringOrNull(m.key ?? null, `${path}/key`, 'key'), name: r.string(m.name, `${path}/name`, 'name') };
  }
}

export type { SourcePosition };
