import { Type, type Static, type TSchema } from 'typebox';
import { declareFields, type FieldDeclaration } from './declared-fields.ts';
import { Title } from './text.ts';

/** What a link field's value is; each path that carries links handles every shape (see `ReportFieldShape`). */
export type LinkFieldShape = 'title' | 'url';

export type LinkFieldDeclaration<
  S extends TSchema = TSchema,
  C extends string = string,
  H extends LinkFieldShape = LinkFieldShape,
> = FieldDeclaration<S, C, H>;

function field<S extends TSchema, C extends string, H extends LinkFieldShape>(
  declaration: LinkFieldDeclaration<S, C, H>,
): LinkFieldDeclaration<S, C, H> {
  return declaration;
}

/**
 * Every field of a report link, declared once: the API's link fields, the row maps, the links of
 * `ReportDocument`, the Markdown file's link lines and both DOCX renderers derive from this.
 */
export const LINK_FIELDS = {
  title: field({
    schema: Title(300),
    column: 'title',
    storage: 'value',
    shape: 'title',
    label: 'Title',
    empty: () => '',
    required: true,
  }),
  url: field({
    schema: Type.String({
      pattern: '^(https?|mailto):',
      maxLength: 4000,
      description: 'An http, https or mailto URL.',
    }),
    column: 'url',
    storage: 'value',
    shape: 'url',
    label: 'URL',
    empty: () => '',
    required: true,
  }),
};

export type LinkFieldName = keyof typeof LINK_FIELDS;
/** The link's fields with what derives from them (schemas, empty values, row maps). */
export const LINK = declareFields(LINK_FIELDS);
export const ReportLinkProperties = LINK.properties;
export const LinkFieldsSchema = Type.Object(ReportLinkProperties, { additionalProperties: false });
export type LinkFields = Static<typeof LinkFieldsSchema>;

/**
 * A link as documents and files show it, by the shapes of its fields: the text a reader sees and
 * the target it opens. A new shape is a compile error here until it is decided how a link shows it.
 */
export function linkParts(link: LinkFields): { text: string; target: string } {
  let text = '';
  let target = '';
  for (const [name, f] of LINK.entries) {
    const shape: LinkFieldShape = f.shape;
    switch (shape) {
      case 'title':
        text = link[name];
        break;
      case 'url':
        target = link[name];
        break;
      default:
        shape satisfies never;
    }
  }
  return { text, target };
}

/** A link from the text a reader sees and the target it opens (the reverse of `linkParts`). */
export function linkOfParts(text: string, target: string): LinkFields {
  const link = LINK.empty();
  for (const [name, f] of LINK.entries) {
    const shape: LinkFieldShape = f.shape;
    switch (shape) {
      case 'title':
        link[name] = text;
        break;
      case 'url':
        link[name] = target;
        break;
      default:
        shape satisfies never;
    }
  }
  return link;
}
