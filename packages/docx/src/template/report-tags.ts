import {
  LINK,
  REPORT,
  REPORT_PROJECT,
  TAB,
  type LinkFieldShape,
  type LinkFields,
  type ProjectFieldShape,
  type ReportDocumentTab,
  type ReportFieldShape,
  type ReportMarkdownFieldName,
  type ReportProjectFieldName,
  type ReportStatus,
  type TabFieldShape,
} from '@service/report-model';
import { isEvidenceImage, readEvidenceImage } from '../evidence-images.ts';
import { LABEL_TAGS } from '../messages/report-messages.ts';
import { assetLocation, formatDay, formatTestingPeriod, SEVERITIES_DESCENDING } from '../report-labels.ts';
import { renderSeverityChartPng, SEVERITY_CHART_SIZE } from '../severity-chart.ts';
import { drawing, paragraph } from '../wordml/wordml.ts';
import { FINDING_TAGS, findingItem, EVIDENCE_TAGS } from './finding-tags.ts';
import { once, onceEach, oncePer, type Data } from './lazy-data.ts';
import { RETEST_REPORT_TAGS, retestReportData } from './retest-template-data.ts';
import type { RichText } from './rich-text.ts';
import { listTag, richTag, TagSet, textTag, type TagDefinitions } from './tag-set.ts';
import type { TemplateRender } from './template-render.ts';

const capitalised = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

// ---- Tabs and links ---------------------------------------------------------------------------

interface TabItem {
  render: TemplateRender;
  tab: ReportDocumentTab;
  number: number;
  markdown(name: string): RichText;
  shown(): Set<string>;
}

/** The tags of one tab field, by its shape. */
function tabFieldTags(name: string, shape: TabFieldShape): TagDefinitions<TabItem> {
  const value = (t: TabItem) => t.tab[name as keyof ReportDocumentTab] as string;
  switch (shape) {
    case 'title':
    case 'placement':
      return { [name]: textTag(value) };
    case 'markdown':
      return {
        [name]: richTag((t) => t.markdown(name).xml()),
        [`${name}Text`]: textTag((t) => t.markdown(name).text(), true),
      };
    default:
      return shape satisfies never;
  }
}

const TAB_TAGS = new TagSet<TabItem>('tabs', {
  number: textTag((t) => String(t.number)),
  ...Object.assign({}, ...TAB.entries.map(([name, f]) => tabFieldTags(name, f.shape))),
  evidence: listTag(EVIDENCE_TAGS, (t) => t.render.evidenceItems(t.tab.evidence, t.shown())),
});

function tabItem(render: TemplateRender, tab: ReportDocumentTab, index: number): TabItem {
  const markdown = onceEach((name: string) => render.rich(tab[name as 'content'], 2, name, `${name}Text`));
  return {
    render,
    tab,
    number: index + 1,
    markdown,
    shown: once(() => {
      const set = new Set<string>();
      for (const [name, f] of TAB.entries) if (f.shape === 'markdown') markdown(name).figures(set);
      return set;
    }),
  };
}

function linkFieldTags(name: keyof LinkFields, shape: LinkFieldShape): TagDefinitions<LinkFields> {
  switch (shape) {
    case 'title':
    case 'url':
      return { [name]: textTag((l: LinkFields) => l[name]) };
    default:
      return shape satisfies never;
  }
}

const LINK_TAGS = new TagSet<LinkFields>(
  'links',
  Object.assign({}, ...LINK.entries.map(([name, f]) => linkFieldTags(name, f.shape))),
);

// ---- The report -------------------------------------------------------------------------------

/** The tags of one of the report's own fields, by its shape. */
function reportFieldTags(name: string, shape: ReportFieldShape): TagDefinitions<ReportItem> {
  const value = (r: ReportItem) => r.render.doc[name as keyof typeof REPORT.declarations];
  switch (shape) {
    case 'title':
    case 'language':
    case 'findingOrder':
      return { [name]: textTag((r) => value(r) as string) };
    case 'reportStatus':
      return { [name]: textTag((r) => r.render.locale.reportStatus(value(r) as ReportStatus)) };
    case 'markdown':
      return {
        [name]: richTag((r) => r.markdown(name as ReportMarkdownFieldName).xml()),
        [`${name}Text`]: textTag((r) => r.markdown(name as ReportMarkdownFieldName).text(), true),
      };
    default:
      return shape satisfies never;
  }
}

/**
 * The tags of a project field a report carries, by its shape: the project's name is `{project}`, its
 * dates keep their names (`{startDate}`), any other field is `{project<Name>}`.
 */
function projectFieldTags(name: ReportProjectFieldName, shape: ProjectFieldShape): TagDefinitions<ReportItem> {
  const value = (r: ReportItem) => r.render.doc.project[name] as unknown;
  const tag = `project${capitalised(name)}`;
  switch (shape) {
    case 'name':
      return { project: textTag((r) => value(r) as string) };
    case 'date':
      return { [name]: textTag((r) => r.render.locale.date(value(r) as string | null), true) };
    case 'projectType':
    case 'projectStatus':
      return { [tag]: textTag((r) => (value(r) as string | null) ?? '') };
    case 'markdown':
      return {
        [tag]: richTag((r) => r.project(name).xml()),
        [`${tag}Text`]: textTag((r) => r.project(name).text(), true),
      };
    default:
      return shape satisfies never;
  }
}

interface ReportItem {
  render: TemplateRender;
  markdown(name: ReportMarkdownFieldName): RichText;
  project(name: ReportProjectFieldName): RichText;
  tabs(): Data[];
}

function reportItem(render: TemplateRender): ReportItem {
  const memo = <K extends string>(text: (name: K) => string, heading: number, tag: (name: K) => string) =>
    onceEach((name: K) => render.rich(text(name), heading, tag(name), `${tag(name)}Text`));
  return {
    render,
    markdown: memo(
      (name: ReportMarkdownFieldName) => render.doc[name],
      2,
      (name) => name,
    ),
    project: memo(
      (name: ReportProjectFieldName) => String(render.doc.project[name] ?? ''),
      2,
      (name) => `project${capitalised(name)}`,
    ),
    tabs: once(() => render.doc.tabs.map((t, i) => TAB_TAGS.data(tabItem(render, t, i), render.uses))),
  };
}

const SEVERITY_ROW_TAGS = new TagSet<{ render: TemplateRender; severity: (typeof SEVERITIES_DESCENDING)[number] }>(
  'severities',
  {
    severity: textTag(({ render, severity }) => render.locale.severity(severity)),
    severityKey: textTag(({ severity }) => severity),
    count: textTag(({ render, severity }) => render.locale.integer(render.counts[severity])),
    color: textTag(({ render, severity }) => render.style.severityColors[severity].replace('#', '')),
    shadeCell: textTag(({ render, severity }) => render.colours(render.style.severityColors[severity]).shadeCell),
    shadeParagraph: textTag(
      ({ render, severity }) => render.colours(render.style.severityColors[severity]).shadeParagraph,
    ),
    colorText: textTag(({ render, severity }) => render.colours(render.style.severityColors[severity]).colorText),
  },
);

const EVIDENCE_APPENDIX_TAGS = new TagSet<never>('evidenceAppendix', {
  number: textTag(() => ''),
  findingNumber: textTag(() => ''),
  findingTitle: textTag(() => ''),
  location: textTag(() => ''),
  url: textTag(() => ''),
  evidence: textTag(() => ''),
});

function severityChart({ render }: ReportItem): string {
  const { doc, style, locale, ctx, counts } = render;
  if (doc.findings.length === 0) return '';
  const chart = readEvidenceImage(renderSeverityChartPng(counts, style, locale));
  if (!isEvidenceImage(chart)) return '';
  return render.raw(
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
}

/** The report's retest tags, built when one of them is first read (all from one computation). */
function retestReportTags(): TagDefinitions<ReportItem> {
  const of = oncePer((r: ReportItem) => retestReportData(r.render.doc, r.render.style, r.render.ctx));
  return Object.fromEntries(
    Object.entries(RETEST_REPORT_TAGS).map(([key, kind]) => [
      key,
      {
        kind,
        lazy: true,
        value: (r: ReportItem) => {
          const v = of(r)[key];
          return key === 'retestChart' && v !== '' ? r.render.raw(v as string) : v;
        },
      },
    ]),
  );
}

const count = (severity: (typeof SEVERITIES_DESCENDING)[number]) =>
  textTag(({ render }: ReportItem) => render.locale.integer(render.counts[severity]));

/** Every tag of the report scope, from the report's fields, its project, its parts and its words. */
const REPORT_TAGS = new TagSet<ReportItem>('report', {
  ...Object.assign({}, ...REPORT.entries.map(([name, f]) => reportFieldTags(name, f.shape))),
  client: textTag(({ render }) => render.doc.client.name),
  ...Object.assign({}, ...REPORT_PROJECT.entries.map(([name, f]) => projectFieldTags(name, f.shape))),
  testingPeriod: textTag(({ render }) => formatTestingPeriod(render.doc.project, render.locale), true),
  date: textTag(({ render }) => formatDay(render.now, render.locale), true),
  coverTitle: textTag(({ render }) => render.style.coverPage.title ?? render.locale.text('securityAssessmentReport')),
  coverSubtitle: textTag(({ render }) => render.style.coverPage.subtitle ?? ''),
  headerText: textTag(({ render }) => render.style.headerText),
  footerText: textTag(({ render }) => render.style.footerText),
  severityChart: richTag(severityChart),
  findingCount: textTag(({ render }) => render.locale.integer(render.doc.findings.length)),
  criticalCount: count('critical'),
  highCount: count('high'),
  mediumCount: count('medium'),
  lowCount: count('low'),
  infoCount: count('info'),
  severities: listTag(SEVERITY_ROW_TAGS, ({ render }) =>
    SEVERITIES_DESCENDING.map((severity) => SEVERITY_ROW_TAGS.data({ render, severity }, render.uses)),
  ),
  hasFindings: textTag(({ render }) => render.doc.findings.length > 0),
  hasLinks: textTag(({ render }) => render.doc.links.length > 0),
  findings: listTag(FINDING_TAGS, ({ render }) =>
    render.doc.findings.map((f, i) => FINDING_TAGS.data(findingItem(render, f, i), render.uses)),
  ),
  tabs: listTag(TAB_TAGS, (r) => r.tabs()),
  // The same tabs by where they belong: before the findings, and after them (appendices).
  tabsBefore: listTag(TAB_TAGS, (r) => r.tabs().filter((t) => t.placement === 'before')),
  tabsAfter: listTag(TAB_TAGS, (r) => r.tabs().filter((t) => t.placement === 'after')),
  links: listTag(LINK_TAGS, ({ render }) => render.doc.links.map((l) => LINK_TAGS.data(l, render.uses))),
  evidenceMode: textTag(({ render }) => render.style.evidenceMode),
  hasEvidenceAppendix: textTag(({ render }) => render.plan().appendix.length > 0, true),
  evidenceAppendix: listTag(EVIDENCE_APPENDIX_TAGS, ({ render }) =>
    render.plan().appendix.map((e) => ({
      number: render.ref(e.number),
      findingNumber: String(e.findingNumber),
      findingTitle: e.findingTitle,
      location: assetLocation(e.asset),
      url: e.asset.url ?? '',
      evidence: e.evidence,
    })),
  ),
  ...retestReportTags(),
  // `{label.findings}`, `{label.severity}`, `{label.severity.high}`...: the words of the message catalogue.
  ...Object.fromEntries(
    LABEL_TAGS.map(({ tag, key }) => [tag, textTag(({ render }: ReportItem) => render.locale.text(key), true)]),
  ),
});

/** The tag language of Word templates: every scope and tag (docs/docx-templates.md). */
export const TEMPLATE_TAGS = REPORT_TAGS.scope;

/** The values of every tag for one report. */
export function reportTagData(render: TemplateRender): Data {
  return REPORT_TAGS.data(reportItem(render), render.uses);
}
