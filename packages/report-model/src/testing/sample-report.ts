import { LINK, type LinkFieldName, type LinkFields } from '../link-fields.ts';
import { PROJECT, type ProjectFieldName } from '../project-fields.ts';
import { REPORT, type ReportFieldName, type ReportFields } from '../report-fields.ts';
import { TAB, type TabFieldName, type TabFields } from '../tab-fields.ts';

/**
 * A value of every report, project, tab and link field that is not its empty value, by the field's
 * shape, for tests that walk every field through a path (a new shape is a compile error here until
 * it has a sample). `variant` 1 and 2 differ in every field, so a change of each can be seen.
 */
export function sampleReportFieldValue(name: ReportFieldName, variant: 1 | 2 = 1): unknown {
  const shape = REPORT.declarations[name].shape;
  const n = variant;
  switch (shape) {
    case 'title':
      return `Report ${n}: external test of "shop" <web> & API`;
    case 'reportStatus':
      return n === 1 ? 'review' : 'final';
    case 'language':
      return n === 1 ? 'en-GB' : 'en-US';
    case 'markdown':
      return `The ${name}, variant ${n}:\n\n- one **point**\n- [a link](https://example.com/${name}/${n})`;
    case 'findingOrder':
      return n === 1 ? 'manual' : 'severity';
    default:
      return shape satisfies never;
  }
}

export function sampleReportFields(variant: 1 | 2 = 1): ReportFields {
  return Object.fromEntries(REPORT.names.map((name) => [name, sampleReportFieldValue(name, variant)])) as ReportFields;
}

export function sampleProjectFieldValue(name: ProjectFieldName, variant: 1 | 2 = 1): unknown {
  const shape = PROJECT.declarations[name].shape;
  const n = variant;
  switch (shape) {
    case 'name':
      return `Project ${n} "Quarterly" <external>`;
    case 'projectType':
      return n === 1 ? 'Web application test' : 'Network test';
    case 'markdown':
      return `The project's ${name}, variant ${n}.`;
    case 'projectStatus':
      return n === 1 ? 'completed' : 'planned';
    case 'date':
      return `2024-0${n}-${name === 'startDate' ? '04' : '08'}`;
    default:
      return shape satisfies never;
  }
}

export function sampleTabFieldValue(name: TabFieldName, variant: 1 | 2 = 1): unknown {
  const shape = TAB.declarations[name].shape;
  const n = variant;
  switch (shape) {
    case 'title':
      return `Tab ${n}: scope & "rules"`;
    case 'markdown':
      return `The tab's ${name}, variant ${n}:\n\n1. first\n2. second`;
    case 'placement':
      return n === 1 ? 'after' : 'before';
    default:
      return shape satisfies never;
  }
}

export function sampleTab(variant: 1 | 2 = 1): TabFields {
  return Object.fromEntries(TAB.names.map((name) => [name, sampleTabFieldValue(name, variant)])) as TabFields;
}

export function sampleLinkFieldValue(name: LinkFieldName, variant: 1 | 2 = 1): unknown {
  const shape = LINK.declarations[name].shape;
  const n = variant;
  switch (shape) {
    case 'title':
      return `Link ${n}: the ticket "SCOPE-${n}"`;
    case 'url':
      return `https://tickets.example.com/SCOPE-${n}`;
    default:
      return shape satisfies never;
  }
}

export function sampleLink(variant: 1 | 2 = 1): LinkFields {
  return Object.fromEntries(LINK.names.map((name) => [name, sampleLinkFieldValue(name, variant)])) as LinkFields;
}
