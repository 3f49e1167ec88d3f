// A Word template of 500 findings through our engine and through docxtemplater set up as
// pwndoc-ng sets it up, side by side: the same simple template (cover lines, then per finding a
// heading, severity and CVSS, description and remediation as rich text, the affected assets), the
// same report. Each engine runs in a fresh child process so its peak RSS is its own; the engines
// take turns over several rounds so a busy machine slows them alike.
// Figures: per engine the median over the rounds of each round's median of 5 runs after a warm-up,
// wall-clock and CPU time. Targets: ours at most 1.0x the time of docxtemplater as pwndoc-ng
// (both clocks); ours under 400 MB peak RSS.
//
// docxtemplater as pwndoc-ng (backend/src/lib/report-generator.js) uses it: PizZip,
// `paragraphLoop: true` and `linebreaks: true`, the output zipped as pwndoc-ng does
// (`generate({ type: 'nodebuffer' })`: stored, not deflated). pwndoc-ng keeps rich text as HTML and
// turns each field the template shows into Office XML while rendering (`{@description |
// convertHTML}`): HTML read with htmlparser2, paragraphs, runs, lists and tables built as objects
// of the `docx` library, serialised with the `xml` package. Here the same steps, written for this
// bench, run on the report's Markdown rendered to HTML beforehand (untimed: pwndoc-ng stores
// HTML); pwndoc-ng also makes a `docx` Document per field, which this leaves out, so its real cost
// is higher still. Left out: pwndoc-ng's angular-expressions parser (its filter syntax; docxtemplater's
// default parser looks names up faster) and its image module (the report has no images).
// "docxtemplater, plain paragraphs" is a lower bound for reference: each Markdown field as plain
// paragraphs (split at blank lines, escaped), the least any rich-text conversion does.
// Ours: renderTemplateDocx with the Markdown written as styled paragraphs, lists, tables and
// code, every safety check on the template, and the output deflated.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as docx from 'docx';
import Docxtemplater from 'docxtemplater';
import { Parser } from 'htmlparser2';
import MarkdownIt from 'markdown-it';
import PizZip from 'pizzip';
import { renderTemplateDocx } from '@service/docx';
import { resolveReportStyle, type ReportDocument } from '@service/report-model';
import { sampleReportDocument } from '../support/sample-report-document.ts';
import { median } from '../support/median.ts';

const FINDINGS = 500;
const WARMUP = 1;
const RUNS = 5;
const ROUNDS = 3;
const TARGET_RATIO = 1.0;
const TARGET_RSS_MB = 400;

const ENGINES = ['pwndoc', 'plain', 'ours'] as const;
type Engine = (typeof ENGINES)[number];
const ENGINE_NAMES: Record<Engine, string> = {
  pwndoc: 'docxtemplater as pwndoc-ng',
  plain: 'docxtemplater, plain paragraphs',
  ours: 'ours (renderTemplateDocx)',
};

interface ChildReport {
  ms: number;
  cpuMs: number;
  mb: number;
  peakRssMb: number;
}

// The `xml` package has no types of its own.
const toXml = createRequire(import.meta.url)('xml') as (object: unknown) => string;

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const para = (style: string | null, text: string) =>
  `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

/**
 * The simple template: the library's example template (its styles, header and footer) with a body
 * of the tags a plain findings report uses, which both engines read the same way.
 */
export function simpleTemplate(): Uint8Array {
  const example = readFileSync(
    fileURLToPath(new URL('../../../../library/report-styles/word-template-example.docx', import.meta.url)),
  );
  const zip = new PizZip(example);
  const original = zip.file('word/document.xml')!.asText();
  const sectPr = /<w:sectPr[\s\S]*<\/w:sectPr>/.exec(original)?.[0] ?? '';
  const body = [
    para('Title', '{title}'),
    para(null, '{client} · {project}'),
    para(null, '{date}'),
    para(null, '{#findings}'),
    para('Heading2', '{number}. {title}'),
    para(null, 'Severity: {severity} · CVSS {cvssScore}'),
    para(null, '{@description}'),
    para(null, '{@remediation}'),
    para(null, '{#affectedAssets}'),
    para(null, '{location}'),
    para(null, '{/affectedAssets}'),
    para(null, '{/findings}'),
  ].join('');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="${W}" ` +
      `xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>${body}${sectPr}</w:body></w:document>`,
  );
  return zip.generate({ type: 'uint8array', compression: 'DEFLATE' });
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Markdown as plain Word paragraphs (the lower bound). */
function plainParagraphs(markdown: string): string {
  return markdown
    .split(/\n{2,}/)
    .map(
      (p) =>
        `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p).replace(/\n/g, '</w:t><w:br/><w:t xml:space="preserve">')}</w:t></w:r></w:p>`,
    )
    .join('');
}

const HEADINGS: Record<string, (typeof docx.HeadingLevel)[keyof typeof docx.HeadingLevel]> = {
  h1: docx.HeadingLevel.HEADING_1,
  h2: docx.HeadingLevel.HEADING_2,
  h3: docx.HeadingLevel.HEADING_3,
  h4: docx.HeadingLevel.HEADING_4,
  h5: docx.HeadingLevel.HEADING_5,
  h6: docx.HeadingLevel.HEADING_6,
};

/**
 * HTML as Office XML the way pwndoc-ng's convertHTML goes about it: read with htmlparser2; each
 * block a `docx` Paragraph (headings, list items with their level, code lines with breaks), text
 * runs with bold, italic, code and link styles, tables of cells holding paragraphs; each block
 * serialised on its own with the `xml` package.
 */
function htmlToOfficeXml(html: string): string {
  const blocks: Array<docx.Paragraph | docx.Table> = [];
  let runs: docx.ParagraphChild[] | null = null;
  let paragraphOptions: docx.IParagraphOptions = {};
  const style = { bold: false, italics: false, code: false, link: false };
  const lists: Array<'bullet' | 'number'> = [];
  let inPre = false;
  let table: docx.TableRow[] | null = null;
  let row: docx.TableCell[] = [];
  let cell: docx.Paragraph[] | null = null;
  const open = (options: docx.IParagraphOptions) => {
    runs = [];
    paragraphOptions = options;
  };
  const close = () => {
    if (runs === null) return;
    const p = new docx.Paragraph({ ...paragraphOptions, children: runs });
    if (cell) cell.push(p);
    else blocks.push(p);
    runs = null;
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (HEADINGS[name]) open({ heading: HEADINGS[name] });
        else if (name === 'p') {
          if (runs === null) open({});
        } else if (name === 'pre') {
          inPre = true;
          open({ style: 'Code' });
        } else if (name === 'strong' || name === 'b') style.bold = true;
        else if (name === 'em' || name === 'i') style.italics = true;
        else if (name === 'code') style.code = true;
        else if (name === 'a') style.link = true;
        else if (name === 'ul') lists.push('bullet');
        else if (name === 'ol') lists.push('number');
        else if (name === 'li') {
          close();
          const level = lists.length - 1;
          open(lists[level] === 'number' ? { numbering: { reference: 'numbers', level } } : { bullet: { level } });
        } else if (name === 'table') table = [];
        else if (name === 'tr') row = [];
        else if (name === 'td' || name === 'th') {
          cell = [];
          open({});
        }
      },
      ontext(text) {
        if (inPre) {
          text.split('\n').forEach((line, i) => {
            runs?.push(new docx.TextRun({ text: line, break: i > 0 ? 1 : 0, font: 'Consolas' }));
          });
          return;
        }
        if (text.trim() === '' && runs === null) return;
        if (runs === null) open({});
        runs!.push(
          new docx.TextRun({
            text,
            bold: style.bold,
            italics: style.italics,
            style: style.link ? 'Hyperlink' : style.code ? 'CodeChar' : undefined,
          }),
        );
      },
      onclosetag(name) {
        if (HEADINGS[name] || name === 'p' || name === 'li') close();
        else if (name === 'pre') {
          close();
          inPre = false;
        } else if (name === 'strong' || name === 'b') style.bold = false;
        else if (name === 'em' || name === 'i') style.italics = false;
        else if (name === 'code') style.code = false;
        else if (name === 'a') style.link = false;
        else if (name === 'ul' || name === 'ol') lists.pop();
        else if (name === 'td' || name === 'th') {
          close();
          row.push(new docx.TableCell({ children: cell! }));
          cell = null;
        } else if (name === 'tr') table?.push(new docx.TableRow({ children: row }));
        else if (name === 'table') {
          blocks.push(new docx.Table({ rows: table!, width: { size: 100, type: docx.WidthType.PERCENTAGE } }));
          table = null;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  close();
  return blocks.map((b) => toXml(b.prepForXml({ stack: [] } as never))).join('');
}

function renderWithDocxtemplater(
  template: Uint8Array,
  doc: ReportDocument,
  rich: (finding: number, field: 'description' | 'remediation') => string,
): Uint8Array {
  const zip = new PizZip(template);
  const templater = new Docxtemplater(zip, { paragraphLoop: true, linebreaks: true });
  templater.render({
    title: doc.title,
    client: doc.client.name,
    project: doc.project.name,
    date: new Date().toISOString().slice(0, 10),
    findings: doc.findings.map((f, i) => ({
      number: String(i + 1),
      title: f.title,
      severity: f.severity,
      cvssScore: f.cvss[0] ? String(f.cvss[0].baseScore) : '',
      // Converted when the template shows it, as pwndoc-ng's filter does.
      description: () => rich(i, 'description'),
      remediation: () => rich(i, 'remediation'),
      affectedAssets: f.affectedAssets.map((a) => ({ location: `${a.host}:${a.port}/${a.protocol}` })),
    })),
  });
  return templater.getZip().generate({ type: 'uint8array' });
}

function runChild(engine: Engine): ChildReport {
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'child', engine], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`the ${engine} run failed with exit code ${child.status}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ChildReport;
}

export default async function run(): Promise<void> {
  console.log(
    `${FINDINGS} findings, simple template; each engine ${ROUNDS} rounds of ${RUNS} runs after ${WARMUP} warm-up, taking turns`,
  );
  const rounds = new Map<Engine, ChildReport[]>(ENGINES.map((e) => [e, []]));
  for (let r = 0; r < ROUNDS; r++) for (const engine of ENGINES) rounds.get(engine)!.push(runChild(engine));
  const results = new Map<Engine, ChildReport>();
  console.log('engine                            median ms  CPU ms  DOCX MB  peak RSS MB');
  for (const engine of ENGINES) {
    const list = rounds.get(engine)!;
    const r: ChildReport = {
      ms: median(list.map((x) => x.ms)),
      cpuMs: median(list.map((x) => x.cpuMs)),
      mb: list[0]!.mb,
      peakRssMb: Math.max(...list.map((x) => x.peakRssMb)),
    };
    results.set(engine, r);
    console.log(
      [
        ENGINE_NAMES[engine].padEnd(32),
        r.ms.toFixed(0).padStart(9),
        r.cpuMs.toFixed(0).padStart(6),
        r.mb.toFixed(1).padStart(7),
        r.peakRssMb.toFixed(0).padStart(11),
      ].join('  '),
    );
  }
  const ours = results.get('ours')!;
  const peer = results.get('pwndoc')!;
  const plain = results.get('plain')!;
  const ratio = ours.ms / peer.ms;
  const cpuRatio = ours.cpuMs / peer.cpuMs;
  const timeMet = ratio <= TARGET_RATIO && cpuRatio <= TARGET_RATIO;
  const rssMet = ours.peakRssMb < TARGET_RSS_MB;
  console.log(
    `time: ours ${ratio.toFixed(2)}x (CPU ${cpuRatio.toFixed(2)}x) docxtemplater as pwndoc-ng ` +
      `${timeMet ? 'met' : 'MISSED'} (<= ${TARGET_RATIO.toFixed(1)}x); ` +
      `${(ours.ms / plain.ms).toFixed(2)}x (CPU ${(ours.cpuMs / plain.cpuMs).toFixed(2)}x) its plain-paragraph lower bound`,
  );
  console.log(
    `peak RSS: ours ${ours.peakRssMb.toFixed(0)} MB, ${(ours.peakRssMb / peer.peakRssMb).toFixed(2)}x docxtemplater as pwndoc-ng ` +
      `${rssMet ? 'met' : 'MISSED'} (< ${TARGET_RSS_MB} MB)`,
  );
  console.log(timeMet && rssMet ? 'targets met' : 'target(s) missed');
}

async function child(engine: Engine): Promise<void> {
  const doc = sampleReportDocument({ findings: FINDINGS, tabs: 0, images: 0 });
  const template = simpleTemplate();
  let render: () => Promise<Uint8Array>;
  if (engine === 'ours') {
    const options = { style: resolveReportStyle(null), loadImage: async () => null };
    render = async () => renderTemplateDocx(template, doc, options);
  } else if (engine === 'plain') {
    render = async () => renderWithDocxtemplater(template, doc, (i, field) => plainParagraphs(doc.findings[i]![field]));
  } else {
    // What pwndoc-ng holds: the rich text as HTML (its editor writes HTML).
    const markdown = new MarkdownIt('default', { html: false, linkify: true });
    const html = doc.findings.map((f) => ({
      description: markdown.render(f.description),
      remediation: markdown.render(f.remediation),
    }));
    render = async () => renderWithDocxtemplater(template, doc, (i, field) => htmlToOfficeXml(html[i]![field]));
  }
  for (let i = 0; i < WARMUP; i++) await render();
  const times: number[] = [];
  const cpu: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    const out = await render();
    const used = process.cpuUsage(startCpu);
    times.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
    bytes = out.length;
  }
  const report: ChildReport = {
    ms: median(times),
    cpuMs: median(cpu),
    mb: bytes / 1048576,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
  console.log(JSON.stringify(report));
}

if (process.argv[2] === 'child') await child(process.argv[3] as Engine);
