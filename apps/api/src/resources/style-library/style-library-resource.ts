import { ReportStyleProperties } from '@service/report-model';
import { baseFields } from '../field.ts';
import { globalFields } from '../finding-library/global-fields.ts';
import type { ResourceDeclaration } from '../resource-declaration.ts';
import { workspaceVisibility } from '../visibility.ts';

export const styleLibraryDeclaration: ResourceDeclaration = {
  name: 'style-library',
  schemaName: 'ReportStyle',
  label: 'report style',
  tag: 'Style library',
  description: 'Report styles used by the DOCX export: fonts, colours, severity colours, cover page, header and footer text, logo. Not visible to external collaborators.',
  table: 'report_styles',
  visibility: workspaceVisibility,
  fields: {
    ...baseFields,
    name: { column: 'name', schema: ReportStyleProperties.name, create: 'required', update: true },
    description: { column: 'description', schema: ReportStyleProperties.description, create: 'optional', update: true },
    fonts: { column: 'fonts', schema: ReportStyleProperties.fonts, create: 'optional', update: true, json: true },
    colors: { column: 'colors', schema: ReportStyleProperties.colors, create: 'optional', update: true, json: true },
    severityColors: { column: 'severity_colors', schema: ReportStyleProperties.severityColors, create: 'optional', update: true, json: true },
    coverPage: { column: 'cover_page', schema: ReportStyleProperties.coverPage, create: 'optional', update: true, json: true },
    headerText: { column: 'header_text', schema: ReportStyleProperties.headerText, create: 'optional', update: true },
    footerText: { column: 'footer_text', schema: ReportStyleProperties.footerText, create: 'optional', update: true },
    logoImageId: { column: 'logo_image_id', schema: ReportStyleProperties.logoImageId, create: 'optional', update: true, references: { table: 'evidence_images', label: 'evidence image' } },
    ...globalFields,
  },
  order: [['r.name', 'asc']],
  create: { example: { name: 'Corporate blue', fonts: { heading: 'Calibri', body: 'Calibri' }, colors: { primary: '#1F4E79' }, severityColors: { critical: '#7B0000', high: '#C00000' } } },
};
