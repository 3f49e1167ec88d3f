import type { AffectedAsset, ReportDocument, ReportDocumentFinding, ReportDocumentTab } from '@service/report-model';
import { evidenceLine, linkLine } from './evidence-line.ts';
import { FINDING_SECTIONS, FINDING_YAML_LAYOUT, findingYamlEntries } from './finding-fields.ts';
import { headingDisplay, isHeadingSafe } from './heading-title.ts';
import { projectYaml, REPORT_FIELD_PARTS, reportFieldEntries } from './report-front-matter.ts';
import { REPORT_FORMAT } from './report-layout.ts';
import { retestInfoYaml, writeRetestSections } from './retest-section.ts';
import { TAB_HEADING_FIELD, TAB_TEXT_FIELD, tabYamlEntries } from './tab-block.ts';
import { fencedBlock, textFieldBlock } from './text-field.ts';
import { yamlMappingText, type YamlValue } from './write-yaml.ts';

/**
 * Writes a whole report as one Markdown file (docs/markdown-format.md): front matter with the
 * metadata, then `# Summary`, `# Tabs`, `# Links` and `# Findings`. Blocks are separated by one
 * blank line; the file ends with one LF. Ids are never written. The same document always gives
 * the same bytes.
 */
export function exportReportMarkdown(doc: ReportDocument): string {
  const blocks: string[] = [`---\n${frontMatter(doc)}\n---`];
  for (const { name, part } of REPORT_FIELD_PARTS) {
    blocks.push(`# ${part}`);
    pushField(blocks, doc[name]);
  }
  blocks.push('# Tabs');
  for (const tab of doc.tabs) writeTab(blocks, tab);
  blocks.push('# Links');
  if (doc.links.length > 0) blocks.push(doc.links.map(linkLine).join('\n'));
  blocks.push('# Findings');
  for (const finding of doc.findings) writeFinding(blocks, finding);
  return `${blocks.join('\n\n')}\n`;
}

function frontMatter(doc: ReportDocument): string {
  const ref = (r: ReportDocument['style']): YamlValue => (r === null ? null : { key: r.key, name: r.name });
  return yamlMappingText([
    ['format', REPORT_FORMAT],
    ...reportFieldEntries(doc),
    ['client', doc.client.name],
    ['project', projectYaml(doc.project)],
    ['style', ref(doc.style)],
    ['template', ref(doc.template)],
    // Why only for retests: the files of other reports stay as they were.
    ['retest', doc.retest ? retestInfoYaml(doc.retest) : undefined],
  ]);
}

function pushField(blocks: string[], content: string): void {
  const block = textFieldBlock(content, 'markdown');
  if (block !== null) blocks.push(block);
}

function heading(prefix: string, title: string): string {
  return `${prefix} ${isHeadingSafe(title) ? title : headingDisplay(title)}`;
}

function yamlBlock(entries: ReadonlyArray<readonly [string, YamlValue]>): string {
  return fencedBlock('yaml', yamlMappingText(entries, FINDING_YAML_LAYOUT));
}

function writeTab(blocks: string[], tab: ReportDocumentTab): void {
  blocks.push(heading('##', tab[TAB_HEADING_FIELD]));
  const entries = tabYamlEntries(tab);
  if (entries.length > 0) blocks.push(yamlBlock(entries));
  pushField(blocks, tab[TAB_TEXT_FIELD]);
  if (tab.evidence.length > 0) blocks.push('### Evidence', tab.evidence.map(evidenceLine).join('\n\n'));
}

function assetEntries(a: AffectedAsset): Array<[string, YamlValue]> {
  return [
    ['host', a.host],
    ['ip', a.ip],
    ['port', a.port],
    ['protocol', a.protocol],
    ['service', a.service],
    ['url', a.url],
    ['parameter', a.parameter],
  ];
}

function writeFinding(blocks: string[], f: ReportDocumentFinding): void {
  blocks.push(heading('##', f.title), yamlBlock(findingYamlEntries(f, true)));
  for (const { field, heading: name, part } of FINDING_SECTIONS) {
    // Why: a finding's own text sections (scanner details) are written only when they hold text,
    // so files of findings without them read as before.
    if (part === 'state' && f[field] === '') continue;
    blocks.push(`### ${name}`);
    pushField(blocks, f[field]);
  }
  if (f.affectedAssets.length > 0) {
    blocks.push('### Affected assets');
    for (const asset of f.affectedAssets) {
      blocks.push(yamlBlock(assetEntries(asset)));
      if (asset.evidence !== undefined) blocks.push(textFieldBlock(asset.evidence, 'text')!);
      if (asset.excerpt !== undefined) blocks.push(textFieldBlock(asset.excerpt, 'excerpt')!);
    }
  }
  if (f.evidence.length > 0) blocks.push('### Evidence', f.evidence.map(evidenceLine).join('\n\n'));
  if (f.retest) writeRetestSections(blocks, f.retest);
}
