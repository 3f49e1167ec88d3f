import { FindingContentProperties, FindingProperties } from '@service/report-model';
import type { Fields } from '../field.ts';

/** The content columns findings and finding templates share, typed by the report model. */
export const findingContentFields: Fields = {
  title: { column: 'title', schema: FindingContentProperties.title, create: 'required', update: true },
  severity: { column: 'severity', schema: FindingContentProperties.severity, create: 'required', update: true },
  cvss: { column: 'cvss', schema: FindingContentProperties.cvss, create: 'optional', update: true, json: true },
  cves: { column: 'cves', schema: FindingContentProperties.cves, create: 'optional', update: true },
  cwes: { column: 'cwes', schema: FindingContentProperties.cwes, create: 'optional', update: true },
  description: {
    column: 'description',
    schema: FindingContentProperties.description,
    create: 'optional',
    update: true,
  },
  impact: { column: 'impact', schema: FindingContentProperties.impact, create: 'optional', update: true },
  remediation: {
    column: 'remediation',
    schema: FindingContentProperties.remediation,
    create: 'optional',
    update: true,
  },
  references: { column: 'references', schema: FindingContentProperties.references, create: 'optional', update: true },
};

/** A finding's own columns beyond its content. */
export const findingStateFields: Fields = {
  status: { column: 'status', schema: FindingProperties.status, create: 'optional', update: true },
  affectedAssets: {
    column: 'affected_assets',
    schema: FindingProperties.affectedAssets,
    create: 'optional',
    update: true,
    json: true,
  },
  source: { column: 'source', schema: FindingProperties.source, create: 'optional', json: true },
};
