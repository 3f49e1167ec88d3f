import type { EvidenceRef, ReportDocument, ResolvedReportStyle } from '@service/report-model';
import { planEvidence, type EvidencePlan, type FindingEvidence } from '../evidence-plan.ts';
import { parseMarkdownBlocks, type Block } from '../markdown-blocks.ts';
import type { ReportLocale } from '../messages/report-locale.ts';
import { countSeverities } from '../report-labels.ts';
import { picture, type WordmlContext } from '../wordml/markdown-to-wordml.ts';
import { once, withLazy, type Data } from './lazy-data.ts';
import { richText, type RichText } from './rich-text.ts';
import { colourMarker } from './severity-colours.ts';

export interface TemplateDataOptions {
  /** Parses Markdown (memoised by the caller, so each text is parsed once however often it is read). */
  parse?: (markdown: string) => Block[];
  /**
   * Stands in for a rich value's WordprocessingML while docxtemplater renders; the caller puts the
   * XML back afterwards. Why: docxtemplater re-encodes everything it outputs in JavaScript, so large
   * Markdown sections cost more inside it than outside.
   */
  raw?: (xml: string) => string;
  /** Whether the template has a tag of this name (in any scope); without it, every tag counts as used. */
  uses?: (name: string) => boolean;
}

/** What every scope's tags of one render read: the report, its style and language, and shared builders. */
export interface TemplateRender {
  doc: ReportDocument;
  style: ResolvedReportStyle;
  ctx: WordmlContext;
  locale: ReportLocale;
  now: Date;
  uses(name: string): boolean;
  raw(xml: string): string;
  /** A Markdown text as paragraphs (`xmlTag`) and plain text (`textTag`), built on first use. */
  rich(markdown: string, baseHeading: number, xmlTag: string, textTag: string): RichText;
  /** The items of an evidence loop: the images of `list` not drawn already (`shown`). */
  evidenceItems(list: readonly EvidenceRef[], shown: ReadonlySet<string>): Data[];
  /** What each finding shows of its assets' evidence, and the evidence appendix (planned on first use). */
  plan(): EvidencePlan;
  /** `E4`: an evidence appendix entry as findings name it; '' for none. */
  ref(number: number | null): string;
  /** The note under a finding's evidence about the assets it leaves out. */
  leftOutNote(evidence: FindingEvidence): string;
  /** The colour directives (`{shadeCell}`, `{shadeParagraph}`, `{colorText}`) of a colour. */
  colours(colour: string): { shadeCell: string; shadeParagraph: string; colorText: string };
  counts: ReturnType<typeof countSeverities>;
}

export function templateRender(
  doc: ReportDocument,
  style: ResolvedReportStyle,
  ctx: WordmlContext,
  now: Date,
  options: TemplateDataOptions,
): TemplateRender {
  const parse = options.parse ?? parseMarkdownBlocks;
  const raw = options.raw ?? ((xml: string) => xml);
  const uses = options.uses ?? (() => true);
  const { locale } = ctx;
  const ref = (n: number | null) => (n === null ? '' : locale.text('evidenceNumber', { number: n }));
  const appendixTitle = locale.text('evidenceAppendix');
  return {
    doc,
    style,
    ctx,
    locale,
    now,
    uses,
    raw,
    rich: (markdown, baseHeading, xmlTag, textTag) =>
      richText(markdown, baseHeading, xmlTag, textTag, { ctx, parse, raw, uses }),
    evidenceItems: (list, shown) =>
      // Why only the picture: the template styles the caption itself, with {caption} where it wants it.
      list
        .filter((e) => !shown.has(e.sha256))
        .map((e, i) =>
          withLazy(
            { caption: e.caption, fileName: e.fileName, number: String(i + 1) },
            { image: () => raw(picture(e.sha256, e.fileName, e.caption || e.fileName, ctx).xml) },
            uses,
          ),
        ),
    plan: once(() => planEvidence(doc.findings, style.evidenceMode, locale)),
    ref,
    leftOutNote(e) {
      const inAppendix = e.leftOutInAppendix;
      const notes: string[] = [];
      if (inAppendix)
        notes.push(
          locale.plural('evidenceAssetsInAppendix', inAppendix.count, {
            range:
              inAppendix.first === inAppendix.last
                ? ref(inAppendix.first)
                : `${ref(inAppendix.first)}–${ref(inAppendix.last)}`,
            appendix: appendixTitle,
          }),
        );
      const notShown = e.leftOut - (inAppendix?.count ?? 0);
      if (notShown > 0) notes.push(locale.plural('evidenceAssetsLeftOut', notShown));
      return notes.join('\n');
    },
    colours: (colour) => ({
      shadeCell: colourMarker('cell', colour),
      shadeParagraph: colourMarker('paragraph', colour),
      colorText: colourMarker('text', colour),
    }),
    counts: countSeverities(doc.findings),
  };
}
