import { FINDING_FIELDS, FINDING_MARKDOWN_FIELDS } from '@service/report-model';
import { REPORT_FIELD_PARTS } from './report-front-matter.ts';
import { RETEST_SECTIONS } from './retest-section.ts';

/**
 * The fixed words of the report file: its format id, its parts (level-1 headings, in this order)
 * and a finding's sections (level-3 headings, in this order).
 */
export const REPORT_FORMAT = 'service-report/1';

/** The parts of the file: one per Markdown field of the report (`Summary`), then tabs, links and findings. */
export const REPORT_PARTS: readonly string[] = [...REPORT_FIELD_PARTS.map((p) => p.part), 'Tabs', 'Links', 'Findings'];
/** "`# Summary`, `# Tabs`, `# Links` or `# Findings`" */
export const REPORT_PART_LIST = REPORT_PARTS.map((p) => `\`# ${p}\``)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

/** The section of a finding's affected assets and of its evidence images. */
export const ASSETS_SECTION = FINDING_FIELDS.affectedAssets.label;
export const EVIDENCE_SECTION = 'Evidence';
/**
 * A finding's sections: its Markdown text fields (in declaration order), its assets, its evidence,
 * and in a retest its retest result, retest assets and retest evidence.
 */
export const REPORT_FINDING_SECTIONS: readonly string[] = [
  ...FINDING_MARKDOWN_FIELDS.map((f) => f.label),
  ASSETS_SECTION,
  EVIDENCE_SECTION,
  ...RETEST_SECTIONS,
];
export type ReportFindingSection = (typeof REPORT_FINDING_SECTIONS)[number];
/** "`### Description`, `### Impact`, ... or `### Evidence`" */
export const REPORT_FINDING_SECTION_LIST = REPORT_FINDING_SECTIONS.map((s) => `\`### ${s}\``)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

const SECTION_NAMES = new Set(REPORT_FINDING_SECTIONS.map((s) => s.toLowerCase()));

/** The section a level-3 heading text names (case-insensitive), or undefined. */
export function reportSectionNamed(text: string): ReportFindingSection | undefined {
  const lower = text.toLowerCase();
  return SECTION_NAMES.has(lower) ? REPORT_FINDING_SECTIONS.find((s) => s.toLowerCase() === lower) : undefined;
}
