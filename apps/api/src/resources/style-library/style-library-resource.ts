import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields, Uuid } from '../field.ts';
import { globalFields } from '../finding-library/finding-library-resource.ts';
import { workspaceVisibility } from '../visibility.ts';

const Hex = Type.String({ pattern: '^#[0-9a-fA-F]{6}$' });
const FontName = Type.String({ minLength: 1, maxLength: 100 });

export function registerStyleLibrary(app: AppContext) {
  return defineResource(app, {
    name: 'style-library',
    schemaName: 'ReportStyle',
    label: 'report style',
    tag: 'Style library',
    description: 'Report styles used by the DOCX export: fonts, colours, severity colours, cover page, header and footer text, logo.',
    table: 'report_styles',
    visibility: workspaceVisibility,
    fields: {
      ...baseFields,
      name: { column: 'name', schema: Type.String({ minLength: 1, maxLength: 200 }), create: 'required', update: true },
      description: { column: 'description', schema: Type.String({ maxLength: 10_000 }), create: 'optional', update: true },
      fonts: { column: 'fonts', schema: Type.Object({ heading: Type.Optional(FontName), body: Type.Optional(FontName), mono: Type.Optional(FontName) }, { additionalProperties: false }), create: 'optional', update: true, json: true },
      colors: { column: 'colors', schema: Type.Object({ primary: Type.Optional(Hex), secondary: Type.Optional(Hex), text: Type.Optional(Hex), tableHeader: Type.Optional(Hex) }, { additionalProperties: false }), create: 'optional', update: true, json: true },
      severityColors: {
        column: 'severity_colors',
        schema: Type.Object({ critical: Type.Optional(Hex), high: Type.Optional(Hex), medium: Type.Optional(Hex), low: Type.Optional(Hex), info: Type.Optional(Hex) }, { additionalProperties: false }),
        create: 'optional',
        update: true,
        json: true,
      },
      coverPage: {
        column: 'cover_page',
        schema: Type.Object({ title: Type.Optional(Type.String({ maxLength: 500 })), subtitle: Type.Optional(Type.String({ maxLength: 500 })), showLogo: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        create: 'optional',
        update: true,
        json: true,
      },
      headerText: { column: 'header_text', schema: Type.String({ maxLength: 500 }), create: 'optional', update: true },
      footerText: { column: 'footer_text', schema: Type.String({ maxLength: 500 }), create: 'optional', update: true },
      logoImageId: { column: 'logo_image_id', schema: Type.Union([Uuid, Type.Null()]), create: 'optional', update: true },
      ...globalFields,
    },
    order: [['r.name', 'asc']],
    create: { example: { name: 'Corporate blue', fonts: { heading: 'Calibri', body: 'Calibri' }, colors: { primary: '#1F4E79' }, severityColors: { critical: '#7B0000', high: '#C00000' } } },
  });
}
