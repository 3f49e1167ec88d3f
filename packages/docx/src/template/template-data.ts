import {
  describeFindingSource,
  FINDING_MARKDOWN_FIELDS,
  type ReportDocument,
  type ResolvedReportStyle,
} from '@service/report-model';
import { inlineText, parseMarkdownBlocks, type Block } from '../markdown-blocks.ts';
import { LABEL_TAGS } from '../messages/report-messages.ts';
import {
  assetLocation,
  countSeverities,
  cvssRatings,
  formatDay,
  formatTestingPeriod,
  primaryCvss,
  SEVERITIES_DESCENDING,
} from '../report-labels.ts';
import { RETEST_REPORT_TAGS, retestFindingData, retestFindingTags, retestReportData } from './retest-template-data.ts';
import { colourMarker } from './severity-colours.ts';
import { isEvidenceImage } from '../evidence-images.ts';
import { planEvidence, type FindingEvidence } from '../evidence-plan.ts';
import { renderSeverityChartPng, SEVERITY_CHART_SIZE } from '../severity-chart.ts';
import { readEvidenceImage } from '../evidence-images.ts';
import { markdownToWordml, picture, type WordmlContext } from '../wordml/markdown-to-wordml.ts';
import { drawing, paragraph } from '../wordml/wordml.ts';

/**
 * The tag language of Word templates, as data: what each name means in each scope. `text` is a
 * plain placeholder `{name}`; `rich` is Markdown or a picture written as paragraphs, used as a
 * raw tag `{@name}` alone in its paragraph; `list` is a loop `{#name}...{/name}` over a scope;
 * `strings` a loop over plain values shown with `{.}`. Every name also works as a condition:
 * `{#name}...{/name}` shows its content when the value is not empty, `{^name}...{/name}` when it is.
 */
export type TagKind = 'text' | 'rich' | 'strings' | { list: TagScope };
export interface TagScope {
  name: string;
  tags: Record<string, TagKind>;
}

const ASSET: TagScope = {
  name: 'affectedAssets',
  tags: {
    host: 'text',
    ip: 'text',
    port: 'text',
    protocol: 'text',
    service: 'text',
    url: 'text',
    parameter: 'text',
    location: 'text',
    // The evidence as the style's evidence mode shows it in a finding; the excerpt and the whole evidence always.
    evidence: 'text',
    excerpt: 'text',
    fullEvidence: 'text',
    evidenceNumber: 'text',
  },
};
const EVIDENCE_APPENDIX_ENTRY: TagScope = {
  name: 'evidenceAppendix',
  tags: {
    number: 'text',
    findingNumber: 'text',
    findingTitle: 'text',
    location: 'text',
    url: 'text',
    evidence: 'text',
  },
};
const EVIDENCE: TagScope = {
  name: 'evidence',
  tags: { image: 'rich', caption: 'text', fileName: 'text', number: 'text' },
};
/**
 * Directive tags that print nothing and colour what they are in by the severity of the finding
 * (or of the `severities` row): the table cell's shading, the paragraph's shading, or the text
 * after the tag in its paragraph (template/severity-colours.ts).
 */
const COLOUR_DIRECTIVES = { shadeCell: 'text', shadeParagraph: 'text', colorText: 'text' } as const;

const CVSS: TagScope = { name: 'cvss', tags: { version: 'text', vector: 'text', score: 'text' } };
const FINDING: TagScope = {
  name: 'findings',
  tags: {
    number: 'text',
    title: 'text',
    severity: 'text',
    severityKey: 'text',
    severityColor: 'text',
    status: 'text',
    cvssScore: 'text',
    cvssVector: 'text',
    cvssVersion: 'text',
    cvss: { list: CVSS },
    cves: 'strings',
    cveList: 'text',
    cwes: 'strings',
    cweList: 'text',
    // Each Markdown field of a finding: `{@name}` as paragraphs, `{nameText}` as plain text.
    ...Object.fromEntries(
      FINDING_MARKDOWN_FIELDS.flatMap(({ name }) => [
        [name, 'rich'],
        [`${name}Text`, 'text'],
      ]),
    ),
    references: 'strings',
    source: 'text',
    severityReason: 'text',
    affectedAssets: { list: ASSET },
    assetCount: 'text',
    hasAssetEvidence: 'text',
    evidenceLeftOut: 'text',
    evidence: { list: EVIDENCE },
    hasAssets: 'text',
    hasReferences: 'text',
    hasEvidence: 'text',
    hasCves: 'text',
    ...COLOUR_DIRECTIVES,
    ...retestFindingTags(EVIDENCE),
  },
};
const TAB: TagScope = {
  name: 'tabs',
  tags: {
    number: 'text',
    title: 'text',
    placement: 'text',
    content: 'rich',
    contentText: 'text',
    evidence: { list: EVIDENCE },
  },
};
const LINK: TagScope = { name: 'links', tags: { title: 'text', url: 'text' } };
const SEVERITY_ROW: TagScope = {
  name: 'severities',
  tags: { severity: 'text', severityKey: 'text', count: 'text', color: 'text', ...COLOUR_DIRECTIVES },
};

export const TEMPLATE_TAGS: TagScope = {
  name: 'report',
  tags: {
    title: 'text',
    client: 'text',
    project: 'text',
    status: 'text',
    language: 'text',
    startDate: 'text',
    endDate: 'text',
    testingPeriod: 'text',
    date: 'text',
    coverTitle: 'text',
    coverSubtitle: 'text',
    headerText: 'text',
    footerText: 'text',
    summary: 'rich',
    summaryText: 'text',
    severityChart: 'rich',
    findingCount: 'text',
    criticalCount: 'text',
    highCount: 'text',
    mediumCount: 'text',
    lowCount: 'text',
    infoCount: 'text',
    severities: { list: SEVERITY_ROW },
    hasFindings: 'text',
    hasLinks: 'text',
    findings: { list: FINDING },
    tabs: { list: TAB },
    // The same tabs by where they belong: before the findings, and after them (appendices).
    tabsBefore: { list: TAB },
    tabsAfter: { list: TAB },
    links: { list: LINK },
    evidenceMode: 'text',
    hasEvidenceAppendix: 'text',
    evidenceAppendix: { list: EVIDENCE_APPENDIX_ENTRY },
    ...RETEST_REPORT_TAGS,
    // `{label.findings}`, `{label.severity}`, `{label.severity.high}`...: the words of the message catalogue.
    ...Object.fromEntries(LABEL_TAGS.map(({ tag }) => [tag, 'text'])),
  },
};

/** Plain text of Markdown, for the `...Text` tags: one paragraph per line, list items and cells as text. */
function markdownText(blocks: readonly Block[]): string {
  const lines: string[] = [];
  const walk = (bs: readonly Block[], indent: string) => {
    for (const b of bs) {
      if (b.kind === 'heading' || b.kind === 'paragraph') lines.push(indent + inlineText(b.inlines));
      else if (b.kind === 'code') lines.push(b.text);
      else if (b.kind === 'list')
        b.items.forEach((item, i) => {
          const mark = b.ordered ? `${b.start + i}. ` : '• ';
          const before = lines.length;
          walk(item, `${indent}  `);
          if (lines.length > before) lines[before] = indent + mark + lines[before]!.trimStart();
        });
      else if (b.kind === 'quote') walk(b.blocks, indent);
      else if (b.kind === 'table')
        for (const r of [b.header, ...b.rows]) lines.push(r.map((c) => inlineText(c)).join(' | '));
      else if (b.kind === 'figure') lines.push(b.image.alt);
    }
  };
  walk(blocks, '');
  return lines.join('\n');
}

type Data = Record<string, unknown>;

/**
 * An object whose `lazy` values are computed when a tag first reads them, then kept. Why: a
 * template uses a few of the tags; docxtemplater reads only the tags a template has, so what no
 * tag reads (a Markdown field as paragraphs, the severity chart, the evidence plan) is never built.
 */
function withLazy(values: Data, lazy: Record<string, () => unknown>, uses: (name: string) => boolean): Data {
  // Why getters that stay (memoised) rather than values written on first read: every object of a
  // kind keeps one shape, which keeps docxtemplater's lookups fast. A name no tag of the template
  // has is left out: docxtemplater never looks it up.
  for (const [key, compute] of Object.entries(lazy))
    if (uses(key)) Object.defineProperty(values, key, { enumerable: true, configurable: true, get: once(compute) });
  return values;
}

/** The names of a finding's retest tags. */
const RETEST_FINDING_TAG_NAMES = Object.keys(retestFindingTags({ name: 'evidence', tags: {} }));

/** A function computed once, on its first call. */
function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** Evidence images a Markdown text draws as figures (so the evidence list after it leaves them out). */
function addFigures(blocks: readonly Block[], into: Set<string>): void {
  for (const b of blocks) {
    if (b.kind === 'figure') {
      if (b.image.evidence) into.add(b.image.evidence.sha256);
    } else if (b.kind === 'list') for (const item of b.items) addFigures(item, into);
    else if (b.kind === 'quote') addFigures(b.blocks, into);
  }
}

/** Whether Markdown may hold an image at all: every image, inline or reference style, starts with `![`. */
export const mayHoldImage = (markdown: string) => markdown.includes('![');

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

/**
 * The values of every tag for one report. Rich values are WordprocessingML built with the
 * template's own styles (`ctx`); text values are plain strings docxtemplater escapes. Values that
 * cost something to build are built when a tag reads them, and once.
 */
export function buildTemplateData(
  doc: ReportDocument,
  style: ResolvedReportStyle,
  ctx: WordmlContext,
  now: Date,
  options: TemplateDataOptions = {},
): Data {
  const parse = options.parse ?? parseMarkdownBlocks;
  const raw = options.raw ?? ((xml: string) => xml);
  const uses = options.uses ?? (() => true);
  const lazyData = (values: Data, lazy: Record<string, () => unknown>) => withLazy(values, lazy, uses);
  const { locale } = ctx;
  const colours = (colour: string) => ({
    shadeCell: colourMarker('cell', colour),
    shadeParagraph: colourMarker('paragraph', colour),
    colorText: colourMarker('text', colour),
  });
  /**
   * A Markdown field as paragraphs (tag `xmlTag`) and as plain text (`textTag`), each built on
   * first use. It is parsed once, when the first of them is read; the parse is let go as soon as
   * every form the template uses is built (what it draws as figures is noted first).
   */
  const rich = (markdown: string, baseHeading: number, xmlTag: string, textTag: string) => {
    let blocks: Block[] | null = null;
    let figures: Set<string> | null = null;
    let xmlLeft = uses(xmlTag);
    let textLeft = uses(textTag);
    const parsed = () => {
      if (blocks === null) {
        blocks = parse(markdown);
        if (figures === null && mayHoldImage(markdown)) {
          figures = new Set();
          addFigures(blocks, figures);
        }
      }
      return blocks;
    };
    const done = <T>(value: T): T => {
      if (!xmlLeft && !textLeft) blocks = null;
      return value;
    };
    return {
      xml: once(() => {
        const b = parsed();
        xmlLeft = false;
        return done(b.length === 0 ? '' : raw(markdownToWordml(b, ctx, { baseHeading })));
      }),
      text: once(() => {
        const b = parsed();
        textLeft = false;
        return done(markdownText(b));
      }),
      /** Adds the evidence images it draws as figures, when the template shows it as paragraphs. */
      figures: (into: Set<string>) => {
        if (!uses(xmlTag) || !mayHoldImage(markdown)) return;
        if (figures === null) done(parsed());
        for (const sha of figures ?? []) into.add(sha);
      },
    };
  };
  const evidenceItems = (list: ReportDocument['tabs'][number]['evidence'], shown: Set<string>) =>
    // Why only the picture: the template styles the caption itself, with {caption} where it wants it.
    list
      .filter((e) => !shown.has(e.sha256))
      .map((e, i) =>
        lazyData(
          { caption: e.caption, fileName: e.fileName, number: String(i + 1) },
          { image: () => raw(picture(e.sha256, e.fileName, e.caption || e.fileName, ctx).xml) },
        ),
      );
  const counts = countSeverities(doc.findings);
  const summary = rich(doc.summary, 2, 'summary', 'summaryText');
  const plan = once(() => planEvidence(doc.findings, style.evidenceMode, locale));
  const ref = (n: number | null) => (n === null ? '' : locale.text('evidenceNumber', { number: n }));
  const appendixTitle = locale.text('evidenceAppendix');
  const leftOutNote = (e: FindingEvidence) => {
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
  };
  const severityChart = () => {
    if (doc.findings.length === 0) return '';
    const chart = readEvidenceImage(renderSeverityChartPng(counts, style, locale));
    if (!isEvidenceImage(chart)) return '';
    return raw(
      paragraph(
        { align: 'center' },
        drawing(
          ctx.parts.image('severity-chart', chart),
          ctx.parts.drawingId(),
          SEVERITY_CHART_SIZE.width,
          SEVERITY_CHART_SIZE.height,
          locale.text('findingsBySeverity'),
          SEVERITIES_DESCENDING.map((s) => `${locale.severity(s)}: ${counts[s]}`).join(', '),
        ),
      ),
    );
  };
  const tabs = doc.tabs.map((t, i) => {
    const content = rich(t.content, 2, 'content', 'contentText');
    const shown = once(() => {
      const set = new Set<string>();
      content.figures(set);
      return set;
    });
    return lazyData(
      { number: String(i + 1), title: t.title, placement: t.placement },
      { content: content.xml, contentText: content.text, evidence: () => evidenceItems(t.evidence, shown()) },
    );
  });
  /** A finding's retest tags, built when one of them is first read; its notes as any Markdown field. */
  const retestTagsUsed = RETEST_FINDING_TAG_NAMES.some(uses);
  const retestTags = (f: ReportDocument['findings'][number], shown: () => Set<string>) => {
    if (!retestTagsUsed) return {};
    const notes = rich(f.retest?.notes ?? '', 4, 'retestNotes', 'retestNotesText');
    // The retest's evidence list leaves out what the finding's and the notes' Markdown draws.
    const retestShown = once(() => {
      const set = new Set(shown());
      notes.figures(set);
      return set;
    });
    const data = once(() =>
      retestFindingData(
        f,
        ctx,
        () => ({ xml: '', text: '' }),
        (list) => evidenceItems(list, retestShown()),
      ),
    );
    return Object.fromEntries(
      RETEST_FINDING_TAG_NAMES.map((key): [string, () => unknown] => {
        if (key === 'retestNotes') return [key, () => (f.retest ? notes.xml() : '')];
        if (key === 'retestNotesText') return [key, () => (f.retest ? notes.text() : '')];
        return [key, () => data()[key]];
      }),
    );
  };
  /** The report's retest tags, built when one of them is first read. */
  const retestReport = () => {
    const data = once(() => retestReportData(doc, style, ctx));
    return Object.fromEntries(
      Object.keys(RETEST_REPORT_TAGS).map((key): [string, () => unknown] => [
        key,
        key === 'retestChart'
          ? () => {
              const xml = data()[key] as string;
              return xml === '' ? '' : raw(xml);
            }
          : () => data()[key],
      ]),
    );
  };
  const finding = (f: ReportDocument['findings'][number], i: number): Data => {
    const fields = FINDING_MARKDOWN_FIELDS.map(({ name }) => ({ name, value: rich(f[name], 3, name, `${name}Text`) }));
    // Images the finding's Markdown draws where the template shows it: the evidence list leaves them out.
    const shown = once(() => {
      const set = new Set<string>();
      for (const { value } of fields) value.figures(set);
      return set;
    });
    const cvss = primaryCvss(f.cvss);
    const evidence = () => plan().findings[i]!;
    const views = once(() => new Map(evidence().assets.map((v) => [v.asset, v])));
    return lazyData(
      {
        number: String(i + 1),
        title: f.title,
        severity: locale.severity(f.severity),
        severityKey: f.severity,
        severityColor: style.severityColors[f.severity].replace('#', ''),
        ...colours(style.severityColors[f.severity]),
        status: locale.findingStatus(f.status),
        cvssScore: cvss ? locale.score(cvss.score) : '',
        cvssVector: cvss?.vector ?? '',
        cvssVersion: cvss?.version ?? '',
        cves: f.cves,
        cveList: f.cves.join(', '),
        references: f.references,
        source: describeFindingSource(f.source),
        severityReason: f.severityReason,
        assetCount: locale.integer(f.affectedAssets.length),
        hasAssets: f.affectedAssets.length > 0,
        hasReferences: f.references.length > 0,
        hasCves: f.cves.length > 0,
      },
      {
        ...Object.fromEntries(
          fields.flatMap(({ name, value }) => [
            [name, value.xml],
            [`${name}Text`, value.text],
          ]),
        ),
        cvss: () =>
          cvssRatings(f.cvss).map((c) => ({
            version: c.version,
            vector: c.vector ?? '',
            score: locale.score(c.score),
          })),
        cwes: () => f.cwes.map((c) => `CWE-${c}`),
        cweList: () => f.cwes.map((c) => `CWE-${c}`).join(', '),
        affectedAssets: () =>
          f.affectedAssets.map((a) =>
            lazyData(
              {
                host: a.host ?? '',
                ip: a.ip ?? '',
                port: a.port === undefined || a.port === null ? '' : String(a.port),
                protocol: a.protocol ?? '',
                service: a.service ?? '',
                url: a.url ?? '',
                parameter: a.parameter ?? '',
                fullEvidence: a.evidence ?? '',
              },
              {
                location: () => assetLocation(a),
                evidence: () => views().get(a)?.shown ?? '',
                excerpt: () => views().get(a)?.excerpt ?? '',
                evidenceNumber: () => ref(views().get(a)?.appendixNumber ?? null),
              },
            ),
          ),
        hasAssetEvidence: () => evidence().assets.some((v) => v.shown !== ''),
        evidenceLeftOut: () => leftOutNote(evidence()),
        evidence: () => evidenceItems(f.evidence, shown()),
        hasEvidence: () => f.evidence.some((e) => !shown().has(e.sha256)),
        ...retestTags(f, shown),
      },
    );
  };
  return lazyData(
    {
      title: doc.title,
      client: doc.client.name,
      project: doc.project.name,
      status: locale.reportStatus(doc.status),
      language: doc.language,
      coverTitle: style.coverPage.title ?? locale.text('securityAssessmentReport'),
      coverSubtitle: style.coverPage.subtitle ?? '',
      headerText: style.headerText,
      footerText: style.footerText,
      findingCount: locale.integer(doc.findings.length),
      criticalCount: locale.integer(counts.critical),
      highCount: locale.integer(counts.high),
      mediumCount: locale.integer(counts.medium),
      lowCount: locale.integer(counts.low),
      infoCount: locale.integer(counts.info),
      evidenceMode: style.evidenceMode,
      hasFindings: doc.findings.length > 0,
      hasLinks: doc.links.length > 0,
      links: doc.links.map((l) => ({ title: l.title, url: l.url })),
    },
    {
      startDate: () => locale.date(doc.project.startDate),
      endDate: () => locale.date(doc.project.endDate),
      testingPeriod: () => formatTestingPeriod(doc.project, locale),
      date: () => formatDay(now, locale),
      summary: summary.xml,
      summaryText: summary.text,
      severityChart,
      tabs: () => tabs,
      tabsBefore: () => tabs.filter((t) => t.placement === 'before'),
      tabsAfter: () => tabs.filter((t) => t.placement === 'after'),
      findings: () => doc.findings.map(finding),
      severities: () =>
        SEVERITIES_DESCENDING.map((s) => ({
          severity: locale.severity(s),
          severityKey: s,
          count: locale.integer(counts[s]),
          color: style.severityColors[s].replace('#', ''),
          ...colours(style.severityColors[s]),
        })),
      ...Object.fromEntries(LABEL_TAGS.map(({ tag, key }) => [tag, () => locale.text(key)])),
      ...retestReport(),
      hasEvidenceAppendix: () => plan().appendix.length > 0,
      evidenceAppendix: () =>
        plan().appendix.map((e) => ({
          number: ref(e.number),
          findingNumber: String(e.findingNumber),
          findingTitle: e.findingTitle,
          location: assetLocation(e.asset),
          url: e.asset.url ?? '',
          evidence: e.evidence,
        })),
    },
  );
}
