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
          walk(item, indent + '  ');
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
 * The values of every tag for one report. Rich values are WordprocessingML built with the
 * template's own styles (`ctx`); text values are plain strings docxtemplater escapes.
 */
export function buildTemplateData(
  doc: ReportDocument,
  style: ResolvedReportStyle,
  ctx: WordmlContext,
  now: Date,
  parse: (markdown: string) => Block[] = parseMarkdownBlocks,
): Data {
  const { locale } = ctx;
  const colours = (colour: string) => ({
    shadeCell: colourMarker('cell', colour),
    shadeParagraph: colourMarker('paragraph', colour),
    colorText: colourMarker('text', colour),
  });
  const rich = (markdown: string, baseHeading: number, shown?: Set<string>) => {
    const blocks = parse(markdown);
    return {
      xml: blocks.length === 0 ? '' : markdownToWordml(blocks, ctx, { baseHeading, shown }),
      text: markdownText(blocks),
    };
  };
  const evidenceItems = (list: ReportDocument['tabs'][number]['evidence'], shown: Set<string>) =>
    // Why only the picture: the template styles the caption itself, with {caption} where it wants it.
    list
      .filter((e) => !shown.has(e.sha256))
      .map((e, i) => ({
        image: picture(e.sha256, e.fileName, e.caption || e.fileName, ctx).xml,
        caption: e.caption,
        fileName: e.fileName,
        number: String(i + 1),
      }));
  const counts = countSeverities(doc.findings);
  const summary = rich(doc.summary, 2);
  const plan = planEvidence(doc.findings, style.evidenceMode, locale);
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
  let severityChart = '';
  if (doc.findings.length > 0) {
    const chart = readEvidenceImage(renderSeverityChartPng(counts, style, locale));
    if (isEvidenceImage(chart))
      severityChart = paragraph(
        { align: 'center' },
        drawing(
          ctx.parts.image('severity-chart', chart),
          ctx.parts.drawingId(),
          SEVERITY_CHART_SIZE.width,
          SEVERITY_CHART_SIZE.height,
          locale.text('findingsBySeverity'),
          SEVERITIES_DESCENDING.map((s) => `${locale.severity(s)}: ${counts[s]}`).join(', '),
        ),
      );
  }
  const tabs = doc.tabs.map((t, i) => {
    const shown = new Set<string>();
    const content = rich(t.content, 2, shown);
    return {
      number: String(i + 1),
      title: t.title,
      placement: t.placement,
      content: content.xml,
      contentText: content.text,
      evidence: evidenceItems(t.evidence, shown),
    };
  });
  return {
    title: doc.title,
    client: doc.client.name,
    project: doc.project.name,
    status: locale.reportStatus(doc.status),
    language: doc.language,
    startDate: locale.date(doc.project.startDate),
    endDate: locale.date(doc.project.endDate),
    testingPeriod: formatTestingPeriod(doc.project, locale),
    date: formatDay(now, locale),
    coverTitle: style.coverPage.title ?? locale.text('securityAssessmentReport'),
    coverSubtitle: style.coverPage.subtitle ?? '',
    headerText: style.headerText,
    footerText: style.footerText,
    summary: summary.xml,
    summaryText: summary.text,
    severityChart,
    findingCount: locale.integer(doc.findings.length),
    criticalCount: locale.integer(counts.critical),
    highCount: locale.integer(counts.high),
    mediumCount: locale.integer(counts.medium),
    lowCount: locale.integer(counts.low),
    infoCount: locale.integer(counts.info),
    severities: SEVERITIES_DESCENDING.map((s) => ({
      severity: locale.severity(s),
      severityKey: s,
      count: locale.integer(counts[s]),
      color: style.severityColors[s].replace('#', ''),
      ...colours(style.severityColors[s]),
    })),
    ...Object.fromEntries(LABEL_TAGS.map(({ tag, key }) => [tag, locale.text(key)])),
    tabs,
    tabsBefore: tabs.filter((t) => t.placement === 'before'),
    tabsAfter: tabs.filter((t) => t.placement === 'after'),
    links: doc.links.map((l) => ({ title: l.title, url: l.url })),
    evidenceMode: style.evidenceMode,
    hasEvidenceAppendix: plan.appendix.length > 0,
    evidenceAppendix: plan.appendix.map((e) => ({
      number: ref(e.number),
      findingNumber: String(e.findingNumber),
      findingTitle: e.findingTitle,
      location: assetLocation(e.asset),
      url: e.asset.url ?? '',
      evidence: e.evidence,
    })),
    hasFindings: doc.findings.length > 0,
    hasLinks: doc.links.length > 0,
    ...retestReportData(doc, style, ctx),
    findings: doc.findings.map((f, i) => {
      const shown = new Set<string>();
      const markdown = Object.fromEntries(
        FINDING_MARKDOWN_FIELDS.flatMap(({ name }) => {
          const value = rich(f[name], 3, shown);
          return [
            [name, value.xml],
            [`${name}Text`, value.text],
          ];
        }),
      );
      const cvss = primaryCvss(f.cvss);
      const evidence = plan.findings[i]!;
      const views = new Map(evidence.assets.map((v) => [v.asset, v]));
      return {
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
        cvss: cvssRatings(f.cvss).map((c) => ({
          version: c.version,
          vector: c.vector ?? '',
          score: locale.score(c.score),
        })),
        cves: f.cves,
        cveList: f.cves.join(', '),
        cwes: f.cwes.map((c) => `CWE-${c}`),
        cweList: f.cwes.map((c) => `CWE-${c}`).join(', '),
        ...markdown,
        references: f.references,
        source: describeFindingSource(f.source),
        severityReason: f.severityReason,
        affectedAssets: f.affectedAssets.map((a) => ({
          host: a.host ?? '',
          ip: a.ip ?? '',
          port: a.port === undefined || a.port === null ? '' : String(a.port),
          protocol: a.protocol ?? '',
          service: a.service ?? '',
          url: a.url ?? '',
          parameter: a.parameter ?? '',
          location: assetLocation(a),
          evidence: views.get(a)?.shown ?? '',
          excerpt: views.get(a)?.excerpt ?? '',
          fullEvidence: a.evidence ?? '',
          evidenceNumber: ref(views.get(a)?.appendixNumber ?? null),
        })),
        assetCount: locale.integer(f.affectedAssets.length),
        hasAssetEvidence: evidence.assets.some((v) => v.shown !== ''),
        evidenceLeftOut: leftOutNote(evidence),
        evidence: evidenceItems(f.evidence, shown),
        hasAssets: f.affectedAssets.length > 0,
        hasReferences: f.references.length > 0,
        hasEvidence: f.evidence.some((e) => !shown.has(e.sha256)),
        hasCves: f.cves.length > 0,
        ...retestFindingData(
          f,
          ctx,
          (notes) => rich(notes, 4, shown),
          (list) => evidenceItems(list, shown),
        ),
      };
    }),
  };
}
