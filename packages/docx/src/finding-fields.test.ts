// Every field of the report model's finding declaration reaches the DOCX: each has a tag of its
// own name in a Word template's finding scope whose output follows the finding's value, and each
// Markdown field is a section of our layout.
import { describe, expect, it } from 'vitest';
import { FINDING_FIELD_NAMES, FINDING_MARKDOWN_FIELDS, resolveReportStyle } from '@service/report-model';
import { sampleFinding } from '@service/report-model/testing';
import { renderReportDocx, renderTemplateDocx, TEMPLATE_TAGS, type TagKind, type TagScope } from './index.ts';
import { para, templateWithBody } from './testing/template-fixtures.ts';
import { SAMPLE_REPORT } from './template/sample-report.ts';
import { readZip } from './zip-archive.ts';

const options = { style: resolveReportStyle(null), loadImage: async () => null, now: new Date('2024-03-10T00:00:00Z') };
const documentXml = (docx: Uint8Array) =>
  new TextDecoder().decode(
    readZip(docx, { maxEntries: 1000, maxEntryBytes: 1e9, maxTotalBytes: 1e9 }).get('word/document.xml')!,
  );
const reportWith = (variant: 1 | 2) => ({
  ...SAMPLE_REPORT,
  findings: [{ ...sampleFinding(variant), evidence: [] }],
});

const FINDING_SCOPE = (TEMPLATE_TAGS.tags.findings as { list: TagScope }).list;

/** Paragraphs that show one tag's value, by its kind. */
function showTag(name: string, kind: TagKind): string {
  if (kind === 'text') return para(`{${name}}`);
  if (kind === 'rich') return para(`{@${name}}`);
  if (kind === 'strings') return para(`{#${name}}{.} {/${name}}`);
  const inner = Object.entries(kind.list.tags).filter(([, k]) => k === 'text');
  return para(`{#${name}}`) + para(inner.map(([tag]) => `{${tag}}`).join(' ')) + para(`{/${name}}`);
}

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
      documentXml(await renderTemplateDocx(template, reportWith(variant), options));
    const [one, two] = await Promise.all([shown(1), shown(2)]);
    const between = (xml: string, name: string) => xml.split(`[[${name}]]`)[1]!.split(`[[/${name}]]`)[0]!;
    const text = (xml: string) => xml.replace(/<[^>]+>/g, '');
    for (const name of FINDING_FIELD_NAMES) {
      expect(text(between(one, name)).trim(), name).not.toBe('');
      expect(between(one, name), name).not.toBe(between(two, name));
    }
  });

  it('has a section of our layout for each Markdown field, with its heading and text', async () => {
    const xml = documentXml(await renderReportDocx(reportWith(1), options));
    for (const { name, label } of FINDING_MARKDOWN_FIELDS) {
      expect(xml, name).toContain(`>${label}</w:t>`);
      expect(xml, name).toContain(`The ${name}, variant 1:`);
    }
  });
});
