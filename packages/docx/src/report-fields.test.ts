// Every field of the report model's report, project, tab and link declarations reaches the DOCX:
// a Word template that shows every tag of its scope shows a change of each field, and so does our
// layout, but for the fields it leaves out on purpose, named here.
import { describe, expect, it } from 'vitest';
import { LINK, REPORT, REPORT_PROJECT, resolveReportStyle, TAB, type ReportDocument } from '@service/report-model';
import {
  sampleLink,
  sampleLinkFieldValue,
  sampleProjectFieldValue,
  sampleReportFields,
  sampleReportFieldValue,
  sampleTab,
  sampleTabFieldValue,
} from '@service/report-model/testing';
import { renderReportDocx, renderTemplateDocx, TEMPLATE_TAGS, type TagScope } from './index.ts';
import { para, templateWithBody } from './testing/template-fixtures.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';
import { readZip } from './zip-archive.ts';

const options = { style: resolveReportStyle(null), loadImage: async () => null, now: new Date('2024-03-10T00:00:00Z') };
const documentText = (docx: Uint8Array) =>
  new TextDecoder()
    .decode(readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!)
    .replace(/<[^>]+>/g, '');

const BASE: ReportDocument = {
  ...SAMPLE_REPORT,
  ...sampleReportFields(1),
  project: {
    ...SAMPLE_REPORT.project,
    ...Object.fromEntries(REPORT_PROJECT.names.map((n) => [n, sampleProjectFieldValue(n, 1)])),
  },
  tabs: [{ ...sampleTab(1), evidence: [] }],
  links: [sampleLink(1)],
};

/** Every way a field can change: the report with one field of the report, project, first tab or first link at variant 2. */
const CHANGES: Array<{ field: string; doc: ReportDocument }> = [
  ...REPORT.names.map((name) => ({
    field: `report.${name}`,
    doc: { ...BASE, [name]: sampleReportFieldValue(name, 2) },
  })),
  ...REPORT_PROJECT.names.map((name) => ({
    field: `project.${name}`,
    doc: { ...BASE, project: { ...BASE.project, [name]: sampleProjectFieldValue(name, 2) } },
  })),
  ...TAB.names.map((name) => ({
    field: `tab.${name}`,
    doc: { ...BASE, tabs: [{ ...BASE.tabs[0]!, [name]: sampleTabFieldValue(name, 2) }] },
  })),
  ...LINK.names.map((name) => ({
    field: `link.${name}`,
    doc: { ...BASE, links: [{ ...BASE.links[0]!, [name]: sampleLinkFieldValue(name, 2) }] },
  })),
];

/** Every plain and rich tag of a scope, and every list's the same way, as template paragraphs. */
function everyTag(scope: TagScope): string {
  return Object.entries(scope.tags)
    .map(([name, kind]) => {
      if (kind === 'text') return para(`${name}={${name}}`);
      if (kind === 'rich') return para(`{@${name}}`);
      if (kind === 'strings') return para(`{#${name}}{.} {/${name}}`);
      // Why not the findings: their fields have a walk of their own (finding-fields.test.ts).
      if (kind.list.name === 'findings') return '';
      return para(`{#${name}}`) + everyTag(kind.list) + para(`{/${name}}`);
    })
    .join('');
}

/**
 * Fields our layout does not show, by decision: the finding order is the order findings come in
 * (the service keeps it; one finding shows no order).
 */
const NOT_IN_OUR_LAYOUT = ['report.findingOrder'];

describe('every report, project, tab and link field in the DOCX', () => {
  it('is shown by a Word template that has every tag: a change of any field changes the document', async () => {
    const template = templateWithBody(everyTag(TEMPLATE_TAGS));
    const base = documentText(await renderTemplateDocx(template, BASE, options));
    for (const { field, doc } of CHANGES)
      expect(documentText(await renderTemplateDocx(template, doc, options)), field).not.toBe(base);
  });

  it('is shown by our layout, but for the fields it leaves out', async () => {
    const base = documentText(await renderReportDocx(BASE, options));
    const unchanged: string[] = [];
    for (const { field, doc } of CHANGES)
      if (documentText(await renderReportDocx(doc, options)) === base) unchanged.push(field);
    expect(unchanged).toEqual(NOT_IN_OUR_LAYOUT);
  });
});
