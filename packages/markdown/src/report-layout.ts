/**
 * The fixed words of the report file: its format id, its parts (level-1 headings, in this order)
 * and a finding's sections (level-3 headings, in this order).
 */
export const REPORT_FORMAT = 'service-report/1';

export const REPORT_PARTS = ['Summary', 'Tabs', 'Links', 'Findings'] as const;
export type ReportPart = (typeof REPORT_PARTS)[number];

export const REPORT_FINDING_SECTIONS = ['Description', 'Impact', 'Remediation', 'Affected assets', 'Evidence'] as const;
export type ReportFindingSection = (typeof REPORT_FINDING_SECTIONS)[number];

const SECTION_NAMES = new Set(REPORT_FINDING_SECTIONS.map((s) => s.toLowerCase()));

/** The section a level-3 heading text names (case-insensitive), or undefined. */
export function reportSectionNamed(text: string): ReportFindingSection | undefined {
  const lower = text.toLowerCase();
  return SECTION_NAMES.has(lower) ? REPORT_FINDING_SECTIONS.find((s) => s.toLowerCase() === lower) : undefined;
}
