import { FINDING_CONTENT_FIELD_NAMES, FINDING_FIELDS, type Finding, type FindingContent } from './finding-fields.ts';
import { describeBand, severityDisagreement } from './severity-coherence.ts';
import { TEXT_LIMITS } from './text.ts';

const union = <T>(cap: number, ...lists: ReadonlyArray<readonly T[]>): T[] => [...new Set(lists.flat())].slice(0, cap);

/**
 * A finding that takes a library template's curated content, field by field by its shape: the
 * template's title and text replace the scanner's (where the template has text), lists are
 * joined, and what the scanner measured stays its own (severity, and CVSS when it gave one). A
 * template's CVSS is taken only where the scanner gave none and its band is the scanner's
 * severity; otherwise the finding has none, and `notes` says why.
 */
export function applyTemplateContent(
  finding: Finding,
  template: FindingContent,
): { finding: Finding; notes: string[] } {
  const out: Finding = { ...finding };
  const notes: string[] = [];
  for (const name of FINDING_CONTENT_FIELD_NAMES) {
    const shape = FINDING_FIELDS[name].shape;
    switch (shape) {
      case 'title':
      case 'markdown': {
        const text = withScannerText(template[name as 'title'], finding);
        if (text.trim() !== '') out[name as 'title'] = text;
        break;
      }
      case 'severity':
        break;
      case 'cvss': {
        if (finding.cvss.length > 0 || template.cvss.length === 0) break;
        const band = severityDisagreement({ severity: finding.severity, cvss: template.cvss });
        if (band === null) out.cvss = template.cvss;
        else
          notes.push(
            `The template's CVSS was not taken: ${describeBand(band)}, but the scanner rated the finding ` +
              `${finding.severity}.`,
          );
        break;
      }
      case 'cveList':
        out.cves = union(TEXT_LIMITS.cves, finding.cves, template.cves);
        break;
      case 'cweList':
        out.cwes = union(TEXT_LIMITS.cwes, finding.cwes, template.cwes);
        break;
      case 'referenceList':
        out.references = union(TEXT_LIMITS.references, template.references, finding.references);
        break;
      default:
        shape satisfies never;
    }
  }
  return { finding: out, notes };
}

/**
 * The placeholders a template's text may hold for what the scanner said of this instance (a
 * generic "known vulnerability" template names the scanner's title, description, fix and CVEs).
 */
export const SCANNER_TEXT_PLACEHOLDERS = [
  'scanner.title',
  'scanner.description',
  'scanner.remediation',
  'scanner.cves',
] as const;

const PLACEHOLDER = /\{\{(scanner\.[a-z]+)\}\}/g;

/** A template text with the scanner's text in place of its placeholders (plain substitution, nothing evaluated). */
function withScannerText(text: string, finding: Finding): string {
  if (!text.includes('{{')) return text;
  const values: Record<(typeof SCANNER_TEXT_PLACEHOLDERS)[number], string> = {
    'scanner.title': finding.title,
    'scanner.description': finding.description.trim(),
    'scanner.remediation': finding.remediation.trim(),
    'scanner.cves': finding.cves.join(', '),
  };
  return text
    .replace(PLACEHOLDER, (whole, name: string) => (name in values ? values[name as keyof typeof values] : whole))
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
