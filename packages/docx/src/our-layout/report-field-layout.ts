import {
  REPORT,
  REPORT_PROJECT,
  TAB,
  type ProjectFieldShape,
  type ReportDocument,
  type ReportDocumentTab,
  type ReportFieldName,
  type ReportFieldShape,
  type ReportMarkdownFieldName,
  type ReportProjectFieldName,
  type ReportStatus,
  type TabFieldShape,
} from '@service/report-model';
import type { ReportLocale } from '../messages/report-locale.ts';
import { formatDay, formatTestingPeriod } from '../report-labels.ts';

/**
 * Where our layout shows the report's own fields, its project's and its tabs', each by its shape
 * in an exhaustive switch: a field of a known shape is shown by itself, and a new shape is a
 * compile error here until it is decided where the layout puts it.
 */

/** A report field on the cover's facts (label and value), or null when the layout shows it elsewhere. */
function reportFact(name: ReportFieldName, shape: ReportFieldShape, doc: ReportDocument, locale: ReportLocale) {
  switch (shape) {
    case 'reportStatus':
      return [locale.reportFieldLabel(name), locale.reportStatus(doc[name] as ReportStatus)] as const;
    case 'title': // the cover's title, the page header and the document's title
    case 'markdown': // a section of its own (`reportSections`)
    case 'language': // the language the document is written in
    case 'findingOrder': // the order the findings come in
      return null;
    default:
      return shape satisfies never;
  }
}

/** A project field on the cover's facts, or null when shown otherwise. */
function projectFact(name: ReportProjectFieldName, shape: ProjectFieldShape, value: unknown, locale: ReportLocale) {
  switch (shape) {
    case 'name':
      return [locale.text('project'), value as string] as const;
    case 'projectType':
      return value ? ([locale.projectFieldLabel(name), value as string] as const) : null;
    case 'date': // together, as the testing period
    case 'markdown': // not a fact of the cover
    case 'projectStatus': // the tester's, not the client's
      return null;
    default:
      return shape satisfies never;
  }
}

/** The cover page's facts, in order: the client, the project's, the testing period, the report's, the day. */
export function coverFacts(doc: ReportDocument, locale: ReportLocale, now: Date): Array<readonly [string, string]> {
  const facts: Array<readonly [string, string]> = [[locale.text('client'), doc.client.name]];
  for (const [name, f] of REPORT_PROJECT.entries) {
    const fact = projectFact(name, f.shape, doc.project[name], locale);
    if (fact) facts.push(fact);
  }
  const period = formatTestingPeriod(doc.project, locale);
  if (period) facts.push([locale.text('testingPeriod'), period]);
  for (const [name, f] of REPORT.entries) {
    const fact = reportFact(name, f.shape, doc, locale);
    if (fact) facts.push(fact);
  }
  facts.push([locale.text('date'), formatDay(now, locale)]);
  return facts;
}

/** The report fields our layout writes as sections of their own, before the tabs: its Markdown fields. */
export const REPORT_SECTIONS = REPORT.entries
  .filter(([, f]) => f.shape === 'markdown')
  .map(([name]) => name as ReportMarkdownFieldName);

/** A tab as our layout shows it: its heading and its text, by the shapes of the tab's fields. */
export function tabLayout(tab: ReportDocumentTab): { heading: string; text: string } {
  let heading = '';
  let text = '';
  for (const [name, f] of TAB.entries) {
    const shape: TabFieldShape = f.shape;
    switch (shape) {
      case 'title':
        heading = tab[name];
        break;
      case 'markdown':
        text = tab[name];
        break;
      case 'placement': // where the tab goes: before or after the findings
        break;
      default:
        shape satisfies never;
    }
  }
  return { heading, text };
}
