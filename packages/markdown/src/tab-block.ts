import { TAB, TAB_PLACEMENTS, type TabFieldName, type TabFieldShape, type TabFields } from '@service/report-model';
import type { FieldReader } from './field-reader.ts';
import { isHeadingSafe } from './heading-title.ts';
import type { YamlValue } from './write-yaml.ts';

/**
 * A tab in the report file, by the tab declaration of the report model: its `## heading` holds the
 * title-shaped field, its text the Markdown field, and a ```yaml block under the heading the other
 * fields when they differ from their empty value. Each shape is handled in an exhaustive switch.
 */

type TabEntry = readonly [TabFieldName, { shape: TabFieldShape; empty(): unknown }];
const TAB_ENTRIES = TAB.entries as ReadonlyArray<TabEntry>;
/** The keys of a tab's YAML block. */
export const TAB_KEYS: readonly string[] = TAB_ENTRIES.filter(([, f]) => f.shape !== 'markdown').map(([n]) => n);
const nameOfShape = (shape: TabFieldShape) => TAB_ENTRIES.find(([, f]) => f.shape === shape)![0];
/** The tab field its `## heading` holds, and the one its text holds. */
export const TAB_HEADING_FIELD = nameOfShape('title');
export const TAB_TEXT_FIELD = nameOfShape('markdown');

/** A tab field's value in the tab's YAML block, or undefined to leave it out. */
function tabYamlValue(shape: TabFieldShape, value: unknown, empty: unknown): YamlValue | undefined {
  switch (shape) {
    case 'title':
      // Why: the heading holds the title; the YAML repeats it only when a heading cannot.
      return isHeadingSafe(value as string) ? undefined : (value as string);
    case 'placement':
      // Why only when not the default: most tabs come before the findings, and their files stay as they were.
      return value === empty ? undefined : (value as string);
    case 'markdown':
      return undefined;
    default:
      return shape satisfies never;
  }
}

/** The entries of a tab's YAML block (none for most tabs). */
export function tabYamlEntries(tab: TabFields): Array<[string, YamlValue]> {
  const entries: Array<[string, YamlValue]> = [];
  for (const [name, f] of TAB_ENTRIES) {
    const value = tabYamlValue(f.shape, tab[name], f.empty());
    if (value !== undefined) entries.push([name, value]);
  }
  return entries;
}

/** Reads a tab field from its YAML block by shape; the title is read by the caller (it checks the heading). */
export function readTabValue(r: FieldReader, name: TabFieldName, shape: TabFieldShape, value: unknown): unknown {
  switch (shape) {
    case 'title':
    case 'markdown':
      return r.string(value, `/${name}`, name);
    case 'placement':
      return r.oneOf(value, `/${name}`, name, TAB_PLACEMENTS);
    default:
      return shape satisfies never;
  }
}
export const TAB_FIELD_ENTRIES = TAB_ENTRIES;
