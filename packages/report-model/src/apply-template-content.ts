import { FINDING_CONTENT_FIELD_NAMES, FINDING_FIELDS, type Finding, type FindingContent } from './finding-fields.ts';
import { TEXT_LIMITS } from './text.ts';

const union = <T>(cap: number, ...lists: ReadonlyArray<readonly T[]>): T[] => [...new Set(lists.flat())].slice(0, cap);

/**
 * A finding that takes a library template's curated content, field by field by its shape: the
 * template's title and text replace the scanner's (where the template has text), lists are
 * joined, and what the scanner measured stays its own (severity, and CVSS when it gave one).
 */
export function applyTemplateContent(finding: Finding, template: FindingContent): Finding {
  const out: Finding = { ...finding };
  for (const name of FINDING_CONTENT_FIELD_NAMES) {
    const shape = FINDING_FIELDS[name].shape;
    switch (shape) {
      case 'title':
      case 'markdown': {
        const text = template[name as 'title'];
        if (text.trim() !== '') out[name as 'title'] = text;
        break;
      }
      case 'severity':
        break;
      case 'cvss':
        if (finding.cvss.length === 0) out.cvss = template.cvss;
        break;
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
  return out;
}
