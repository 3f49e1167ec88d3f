// Every field of the report model's finding declaration reaches the DOCX: each has a tag of its
// own name in a Word template's finding scope whose output follows the finding's value, and our
// layout shows each field (its value changes the document) unless its shape is one the layout
// leaves out on purpose, named here.
import { describe, expect, it } from 'vitest';
import {
  FINDING_FIELD_NAMES,
  FINDING_MARKDOWN_FIELDS,
  resolveReportStyle,
  type Finding,
  type FindingFieldName,
} from '@service/report-model';
import { sampleFieldValue, sampleFinding } from '@service/report-model/testing';
import { renderReportDocx, renderTemplateDocx, TEMPLATE_TAGS, type TagKind, type TagScope } from './index.ts';
import { para, templateWithBody } from './testing/template-fixtures.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';
import { readZip } from './zip-archive.ts';

const options = { style: resolveReportStyle(null), loadImage: async () => null, now: new Date('2024-03-10T00:00:00Z') };
const documentXml = (docx: Uint8Array) =>
  new TextDecoder().decode(
    readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!,
  );
const reportWith = (finding: Finding) => ({ ...SAMPLE_REPORT, findings: [{ ...finding, evidence: [] }] });
const text = (xml: string) => xml.replace(/<[^>]+>/g, '');

const FINDING_SCOPE = (TEMPLATE_TAGS.tags.findings as { list: TagScope }).list;

/** Paragraphs that show one tag's value, by its kind. */
function showTag(name: string, kind: TagKind): string {
  if (kind === 'text') return para(`{${name}}`);
  if (kind === 'rich') return para(`{@${name}}`);
  if (kind === 'strings') return para(`{#${name}}{.} {/${name}}`);
  const inner = Object.entries(kind.list.tags).filter(([, k]) => k === 'text');
  return para(`{#${name}}`) + para(inner.map(([tag]) => `{${tag}}`).join(' ')) + para(`{/${name}}`);
}

/**
 * Finding fields our layout does not show, by decision: where a finding came from (`source`: a
 * scanner rule or library template) is the tester's, not the client's.
 */
const NOT_IN_OUR_LAYOUT: readonly FindingFieldName[] = ['source'];

describe('every finding field in the DOCX', () => {
  it("has a tag of its name in a Word template's finding scope, and the tag shows the finding's value", async () => {
    const body = [
      para('{#findings}'),
      ...FINDING_FIELD_NAMES.map((name) => {
        const kind = FINDING_SCOPE.tags[name];
        expect(kind, `tag ${name}`).toBeDefined();
        return para(`[[${name}]]`) + showTag(name, kind!) + para(`[[/${name}]]`);
      }),
      para('{/findings}'),
    ].join('');
    const template = templateWithBody(body);
    const shown = async (variant: 1 | 2) =>
      documentXml(await renderTemplateDocx(template, reportWith(sampleFinding(variant)), options));
    const [one, two] = await Promise.all([shown(1), shown(2)]);
    const between = (xml: string, name: string) => xml.split(`[[${name}]]`)[1]!.split(`[[/${name}]]`)[0]!;
    for (const name of FINDING_FIELD_NAMES) {
      expect(text(between(one, name)).trim(), name).not.toBe('');
      expect(between(one, name), name).not.toBe(between(two, name));
    }
  });

  it('is shown by our layout: a change of any field changes the text, but for the fields it leaves out', async () => {
    const base = text(documentXml(await renderReportDocx(reportWith(sampleFinding(1)), options)));
    const unchanged: FindingFieldName[] = [];
    for (const name of FINDING_FIELD_NAMES) {
      const changed = { ...sampleFinding(1), [name]: sampleFieldValue(name, 2) } as Finding;
      const xml = text(documentXml(await renderReportDocx(reportWith(changed), options)));
      if (xml === base) unchanged.push(name);
    }
    expect(unchanged).toEqual(NOT_IN_OUR_LAYOUT);
  });

  it('has a section of our layout for each Markdown field, with its heading and text', async () => {
    const xml = documentXml(await renderReportDocx(reportWith(sampleFinding(1)), options));
    for (const { name, label } of FINDING_MARKDOWN_FIELDS) {
      expect(xml, name).toContain(`>${label}</w:t>`);
      expect(xml, name).toContain(`The ${name}, variant 1:`);
    }
  });
});
