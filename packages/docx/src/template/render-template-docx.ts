import { randomBytes } from 'node:crypto';
import Docxtemplater from 'docxtemplater';
import PizZip from 'pizzip';
import type { ReportDocument, ResolvedReportStyle } from '@service/report-model';
import { collectEvidenceRefs, loadEvidenceImages, readEvidenceImage, type LoadedEvidence } from '../evidence-images.ts';
import { describeProblem, InvalidTemplateError, type TemplateProblem } from '../invalid-template-error.ts';
import { parseMarkdownBlocks, type Block } from '../markdown-blocks.ts';
import type { RenderReportOptions } from '../render-options.ts';
import { textColourOn } from '../our-layout/colours.ts';
import type { WordmlContext } from '../wordml/markdown-to-wordml.ts';
import { PackageAdditions } from '../wordml/package-additions.ts';
import { withXmlCharactersOnly } from '../xml-text.ts';
import { writeZip } from '../zip-archive.ts';
import type { PrintBox } from '../evidence-print.ts';
import { reportLocale } from '../messages/report-locale.ts';
import { fillTableOfContents } from './contents-entries.ts';
import { readTemplatePackage } from './read-template-package.ts';
import { applySeverityColours } from './severity-colours.ts';
import { buildTemplateData, mayHoldImage } from './template-data.ts';
import { documentMarkdown } from '../document-markdown.ts';
import { paragraphAt, partParagraphs } from './template-paragraphs.ts';
import { partLabel, problemAt, scanTemplate, type TagPart, type TemplateLocation } from './template-scan.ts';
import { templateStyles, templateTextHeight, templateTextWidth, type TemplateStyles } from './template-styles.ts';
import { checkTemplateTags } from './template-tags.ts';

interface DocxtemplaterError {
  message?: string;
  properties?: {
    id?: string;
    xtag?: string;
    explanation?: string;
    offset?: number | number[];
    file?: string;
    errors?: DocxtemplaterError[];
  };
}

export interface CompiledTemplate {
  doc: Docxtemplater | null;
  files: Map<string, Uint8Array>;
  problems: TemplateProblem[];
  styles: TemplateStyles;
  /** Every tag name the template has, in any scope (what the report data must provide). */
  usedTags: Set<string>;
}

function tagNames(parts: readonly TagPart[], into: Set<string>): Set<string> {
  for (const part of parts) {
    if (part.value !== undefined) into.add(part.value.trim());
    if (part.subparsed) tagNames(part.subparsed, into);
  }
  return into;
}

const text = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : null);

/** docxtemplater's errors (one, or many in a multi error) as template problems with their place. */
export function templateProblemsOf(err: unknown, files: Map<string, Uint8Array>): TemplateProblem[] {
  const e = err as DocxtemplaterError;
  const list = e.properties?.errors ?? [e];
  const locators = new Map<string, (offset: number) => TemplateLocation>();
  return list.map((one) => {
    const p = one.properties ?? {};
    const file = p.file ?? 'word/document.xml';
    const offset = Array.isArray(p.offset) ? p.offset[0] : p.offset;
    const message = p.explanation ?? one.message ?? 'the template cannot be read';
    if (offset === undefined) return { tag: p.xtag ?? null, paragraph: '', message, part: partLabel(file) };
    let locate = locators.get(file);
    if (!locate) {
      const paragraphs = partParagraphs(text(files.get(file)) ?? '');
      locate = (o: number) => {
        const at = paragraphAt(paragraphs, o);
        const index = paragraphs.texts.findIndex((t, i) => paragraphs.starts[i]! <= o && t.trim() === at);
        return { part: partLabel(file), paragraphNumber: index + 1, text: at };
      };
      locators.set(file, locate);
    }
    return problemAt(p.xtag ?? null, locate(offset), message);
  });
}

/**
 * Reads a template safely and checks it in one pass: every tag problem the scan finds (braces,
 * loops, raw tags, foreign syntax) and every name or scope problem, each with its place. Only
 * when there is none is it compiled with docxtemplater's default, logic-less parser (a tag is a
 * name looked up in the data, never an expression), whose own errors are then listed the same
 * way. Package problems throw InvalidTemplateError; tag problems are returned, all of them.
 */
export function compileTemplate(template: Uint8Array): CompiledTemplate {
  const files = readTemplatePackage(template);
  const styles = templateStyles(text(files.get('word/styles.xml')));
  const scan = scanTemplate(files);
  const problems: TemplateProblem[] = [...scan.problems];
  if (scan.foreign !== 'jinja') {
    const unknown: Array<{ shown: string; location: TemplateLocation }> = [];
    for (const part of scan.parts)
      problems.push(
        ...checkTemplateTags(
          part.tags,
          part.file,
          part.locate,
          // Why summed up: a template written for pwndoc-ng names dozens of its fields; one line says it.
          scan.foreign === 'expressions' ? (_name, shown, location) => unknown.push({ shown, location }) : undefined,
        ),
      );
    if (unknown.length > 0) {
      const shown = [...new Set(unknown.map((u) => `{${u.shown}}`))];
      problems.push(
        problemAt(
          unknown[0]!.shown,
          unknown[0]!.location,
          `${unknown.length} more tag${unknown.length === 1 ? '' : 's'} name${unknown.length === 1 ? 's' : ''} ` +
            `fields this service does not have (${shown.slice(0, 6).join(', ')}${shown.length > 6 ? ', ...' : ''}); ` +
            `the DOCX template guide maps pwndoc-ng's names to ours`,
        ),
      );
    }
  }
  problems.sort((a, b) => partOrder(a) - partOrder(b) || (a.paragraphNumber ?? 0) - (b.paragraphNumber ?? 0));
  const usedTags = new Set<string>();
  for (const part of scan.parts) tagNames(part.tags, usedTags);
  if (problems.length > 0) return { doc: null, files, problems, styles, usedTags };
  const zip = new PizZip();
  for (const [name, data] of files) zip.file(name, data);
  let doc: Docxtemplater;
  try {
    // Why no `parser` option: docxtemplater's default parser only looks names up; expression
    // parsers (angular-expressions and the like) have given remote code execution elsewhere.
    doc = new Docxtemplater(zip, { paragraphLoop: true, linebreaks: true, nullGetter: () => '', errorLogging: false });
  } catch (err) {
    if ((err as DocxtemplaterError).properties === undefined) throw err;
    return { doc: null, files, problems: templateProblemsOf(err, files), styles, usedTags };
  }
  return { doc, files, problems: [], styles, usedTags };
}

const partOrder = (p: TemplateProblem) => (p.part === undefined || p.part === 'body' ? 0 : 1);

/**
 * A report through a customer's Word template. Throws InvalidTemplateError (code
 * `invalid_template`) listing every problem when the template is unsafe or its tags do not work.
 */
export async function renderTemplateDocx(
  template: Uint8Array,
  report: ReportDocument,
  options: RenderReportOptions,
): Promise<Uint8Array> {
  const compiled = compileTemplate(template);
  if (compiled.doc === null || compiled.problems.length > 0) throw templateError(compiled.problems);
  return renderCompiledTemplate(compiled, report, options);
}

export function templateError(problems: TemplateProblem[]): InvalidTemplateError {
  return new InvalidTemplateError(
    `the template has ${problems.length} problem${problems.length === 1 ? '' : 's'}; ` +
      `the first: ${describeProblem(problems[0]!)}`,
    problems,
  );
}

export async function renderCompiledTemplate(
  compiled: CompiledTemplate,
  report: ReportDocument,
  options: RenderReportOptions,
): Promise<Uint8Array> {
  const doc = withXmlCharactersOnly(report);
  const parse = markdownCache(doc, compiled.usedTags);
  const images = await loadEvidenceImages(
    collectEvidenceRefs(doc, allMarkdown(doc, parse)),
    options.loadImage,
    templatePrintBox(text(compiled.files.get('word/document.xml')) ?? ''),
    options.scaleImages ?? true,
  );
  return renderCompiledTemplateWith(
    compiled,
    doc,
    withXmlCharactersOnly(options.style),
    images,
    options.now ?? new Date(),
    parse,
  );
}

/** Where a template's evidence images are drawn: its text width, and (as before) at most 620 pixels high. */
function templatePrintBox(documentXml: string): PrintBox {
  const height = Math.floor((templateTextHeight(documentXml) / 1440) * 96);
  return {
    width: Math.floor((templateTextWidth(documentXml) / 1440) * 96),
    height: Math.min(620, Math.floor(height * 0.62)),
    sliceHeight: Math.floor(height * 0.88),
  };
}

/**
 * Parses Markdown for one render. Kept parsed: a text parsed to find its images (the document
 * needs it again), and a text several fields the template shows share (a library finding's text
 * on many findings), until the last of them is built. Any other parse is left to its field, which
 * lets it go once written: parsed Markdown takes far more memory than its text.
 */
export function markdownCache(
  doc?: ReportDocument,
  usedTags?: ReadonlySet<string>,
  parseBlocks: (markdown: string) => Block[] = parseMarkdownBlocks,
): (markdown: string) => Block[] {
  const parsed = new Map<string, Block[]>();
  const usesLeft = new Map<string, number>();
  if (doc && usedTags) {
    const shows = (name: string) => usedTags.has(name) || usedTags.has(`${name}Text`);
    const count = (text: string) => {
      if (text.trim() !== '' && !mayHoldImage(text)) usesLeft.set(text, (usesLeft.get(text) ?? 0) + 1);
    };
    for (const { tag, markdown } of documentMarkdown(doc)) if (shows(tag)) count(markdown);
    for (const [text, uses] of usesLeft) if (uses < 2) usesLeft.delete(text);
  }
  return (markdown: string) => {
    const left = usesLeft.get(markdown);
    if (left === undefined && !mayHoldImage(markdown)) return parseBlocks(markdown);
    let blocks = parsed.get(markdown);
    if (!blocks) {
      blocks = parseBlocks(markdown);
      parsed.set(markdown, blocks);
    }
    if (left === 1) {
      usesLeft.delete(markdown);
      parsed.delete(markdown);
    } else if (left !== undefined) usesLeft.set(markdown, left - 1);
    return blocks;
  };
}

/** The Markdown texts of a report that may draw images, parsed (the others hold no image, so need no parse here). */
function* allMarkdown(doc: ReportDocument, parse: (markdown: string) => Block[]): Generator<Block[]> {
  for (const { markdown } of documentMarkdown(doc)) if (mayHoldImage(markdown)) yield parse(markdown);
}

/** The evidence of a report with the same bytes for every image (the linter's sample). */
export function sampleImages(doc: ReportDocument, bytes: Uint8Array): Map<string, LoadedEvidence> {
  const loaded = readEvidenceImage(bytes);
  return new Map([...collectEvidenceRefs(doc, allMarkdown(doc, markdownCache())).keys()].map((sha) => [sha, loaded]));
}

/** Renders with images already loaded: synchronous, so the linter can run it. */
export function renderCompiledTemplateWith(
  compiled: CompiledTemplate,
  doc: ReportDocument,
  style: ResolvedReportStyle,
  images: Map<string, LoadedEvidence>,
  now: Date,
  parse: (markdown: string) => Block[] = markdownCache(),
): Uint8Array {
  const { doc: templater, files } = compiled;
  const documentXml = text(files.get('word/document.xml')) ?? '';
  const textWidth = templateTextWidth(documentXml);
  const box = templatePrintBox(documentXml);
  const ctx: WordmlContext = {
    styles: compiled.styles.styles,
    monoFont: style.fonts.mono,
    images,
    maxImage: { width: box.width, height: box.height },
    textWidth,
    parts: new PackageAdditions(text(files.get('word/numbering.xml'))),
    figures: { count: 0 },
    locale: reportLocale(doc.language),
    // Why 11 pt: a template's table style is unknown here; measuring at a common body size errs roomy.
    tableFontSize: 22,
    tableLook: {
      headerFill: style.colors.tableHeader.replace('#', ''),
      headerText: textColourOn(style.colors.tableHeader),
      stripe: null,
      grid: 'A6A6A6',
    },
  };
  const rawParts = new RawParts();
  const data = buildTemplateData(doc, style, ctx, now, {
    parse,
    raw: (xml) => rawParts.stand(xml),
    uses: (name) => compiled.usedTags.has(name),
  });
  try {
    templater!.render(data);
  } catch (err) {
    if ((err as DocxtemplaterError).properties === undefined) throw err;
    throw templateError(templateProblemsOf(err, files));
  }
  const out = new Map<string, Uint8Array | string>();
  const zip = templater!.getZip();
  for (const name of Object.keys(zip.files)) {
    const entry = zip.files[name]!;
    if (entry.dir) continue;
    out.set(name, entry.asUint8Array());
  }
  for (const [name, part] of out) {
    if (!/^word\/[^/]+\.xml$/.test(name)) continue;
    // Why before the Markdown goes back in: colour directives are the template's, never the report's text.
    const coloured = applySeverityColours(typeof part === 'string' ? new TextEncoder().encode(part) : part);
    out.set(name, rawParts.putBack(coloured));
  }
  rawParts.release();
  const filled = out.get('word/document.xml');
  if (filled !== undefined)
    out.set(
      'word/document.xml',
      fillTableOfContents(
        typeof filled === 'string' ? new TextEncoder().encode(filled) : filled,
        text(files.get('word/styles.xml')),
        textWidth,
      ),
    );
  ctx.parts.applyTo(out);
  askWordToUpdateFields(out);
  const types = out.get('[Content_Types].xml')!;
  out.delete('[Content_Types].xml');
  return writeZip([['[Content_Types].xml', types], ...out]);
}

const AFTER_UPDATE_FIELDS =
  /<w:(hdrShapeDefaults|footnotePr|endnotePr|compat|docVars|rsids|attachedSchema|themeFontLang|clrSchemeMapping|doNotIncludeSubdocsInStats|doNotAutoCompressPictures|forceUpgrade|captions|readModeInkLockDown|smartTagType|shapeDefaults|doNotEmbedSmartTags|decimalSymbol|listSeparator)\b|<m:mathPr\b|<sl:schemaLibrary\b|<\/w:settings>/;

/**
 * Asks Word to update every field when the filled-in document is opened: the contents, page
 * numbers and references follow the report's text, not the template's. Word asks the reader
 * once ("This document contains fields that may refer to other files...") before it does.
 */
export function askWordToUpdateFields(files: Map<string, Uint8Array | string>): void {
  const settings = files.get('word/settings.xml');
  if (settings === undefined) return;
  const xml = typeof settings === 'string' ? settings : new TextDecoder().decode(settings);
  if (/<w:updateFields\b[^>]*w:val="(true|1|on)"/.test(xml)) return;
  const cleaned = xml.replace(/<w:updateFields\b[^>]*\/>/g, '');
  const at = cleaned.search(AFTER_UPDATE_FIELDS);
  if (at < 0) return;
  files.set('word/settings.xml', `${cleaned.slice(0, at)}<w:updateFields w:val="true"/>${cleaned.slice(at)}`);
}

/**
 * Rich values (Markdown as paragraphs, pictures) stand in the rendered template as short
 * placeholders and are put back afterwards. Why: docxtemplater checks and re-encodes every string
 * it outputs in JavaScript, which on a report's Markdown sections costs more than the rest of the
 * render. A placeholder opens and closes with the same elements as its XML (a paragraph or a
 * table), so docxtemplater repairs a table cell or a table's end exactly as it would with the XML.
 * It carries a random key, so no text of a template or report can pass for one (report text is
 * escaped anyway: it cannot hold `<!--`).
 */
class RawParts {
  private readonly key = randomBytes(8).toString('hex');
  // As UTF-8 bytes: the strings they were built from can go at once, and bytes are half the size.
  private readonly values: Buffer[] = [];

  /** The placeholder of `xml` (or `xml` itself when it is not one element after another). */
  stand(xml: string): string {
    const open = /^<([\w:]+)[\s>/]/.exec(xml)?.[1];
    // Why not a regular expression anchored at the end: it would be tried at every `<` of the XML.
    const closing = xml.endsWith('>') ? xml.lastIndexOf('</') : -1;
    const close = closing < 0 ? undefined : /^<\/([\w:]+)>$/.exec(xml.slice(closing))?.[1];
    if (open === undefined || close === undefined) return xml;
    this.values.push(Buffer.from(xml, 'utf8'));
    return `<${open}><!--raw:${this.key}:${this.values.length - 1}--></${close}>`;
  }

  /** Lets the XML go once every part has it back. */
  release(): void {
    this.values.length = 0;
  }

  /** A rendered part with its placeholders replaced by their XML (as bytes: the part may be tens of MB). */
  putBack(part: Uint8Array): Uint8Array {
    if (this.values.length === 0) return part;
    const bytes = Buffer.from(part.buffer, part.byteOffset, part.byteLength);
    const head = Buffer.from(`<!--raw:${this.key}:`, 'latin1');
    const pieces: Uint8Array[] = [];
    let copied = 0;
    for (let at = bytes.indexOf(head); at >= 0; at = bytes.indexOf(head, at + head.length)) {
      // The placeholder is `<open><!--raw:key:n--></close>`: from the `<` before the comment to the `>` after it.
      const start = bytes.lastIndexOf(0x3c, at - 1);
      const commentEnd = bytes.indexOf('-->', at);
      const end = commentEnd < 0 ? -1 : bytes.indexOf(0x3e, commentEnd + 3);
      const value = this.values[Number(bytes.subarray(at + head.length, commentEnd).toString('latin1'))];
      if (start < copied || end < 0 || value === undefined) continue;
      pieces.push(bytes.subarray(copied, start), value);
      copied = end + 1;
    }
    if (pieces.length === 0) return part;
    pieces.push(bytes.subarray(copied));
    return new Uint8Array(Buffer.concat(pieces));
  }
}
