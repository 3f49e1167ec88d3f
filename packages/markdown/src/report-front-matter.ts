import {
  FINDING_ORDERS,
  PROJECT_STATUSES,
  REPORT,
  REPORT_MARKDOWN_FIELDS,
  REPORT_PROJECT,
  REPORT_STATUSES,
  type ProjectFieldShape,
  type ReportFieldName,
  type ReportFieldShape,
  type ReportFields,
  type ReportMarkdownFieldName,
  type ReportProjectFieldName,
  type ReportProjectFields,
} from '@service/report-model';
import type { FieldReader } from './field-reader.ts';
import type { YamlValue } from './write-yaml.ts';

/**
 * The report's own fields and its project in the report file, each by its declaration in the
 * report model: front matter keys and values, and the parts of the file that hold Markdown fields.
 * Each shape is handled in an exhaustive switch, so a new field of a known shape is written and
 * read by itself and a new shape is a compile error here.
 */

type ReportEntry = readonly [ReportFieldName, (typeof REPORT.entries)[number][1]];
const REPORT_ENTRIES = REPORT.entries as ReadonlyArray<ReportEntry>;

/** Whether a report field is a front matter key (the rest are parts of the file of their own). */
function inFrontMatter(shape: ReportFieldShape): boolean {
  switch (shape) {
    case 'title':
    case 'reportStatus':
    case 'language':
    case 'findingOrder':
      return true;
    case 'markdown':
      return false;
    default:
      return shape satisfies never;
  }
}

const FRONT_MATTER_FIELDS = REPORT_ENTRIES.filter(([, f]) => inFrontMatter(f.shape));
/** The report fields written as front matter keys, in declaration order. */
export const REPORT_FRONT_MATTER_KEYS: readonly string[] = FRONT_MATTER_FIELDS.map(([name]) => name);

/** A report field's front matter value, or undefined to leave it out. */
function reportYamlValue(shape: ReportFieldShape, value: unknown): YamlValue | undefined {
  switch (shape) {
    case 'title':
    case 'reportStatus':
    case 'language':
    case 'findingOrder':
      return value as string;
    case 'markdown':
      return undefined;
    default:
      return shape satisfies never;
  }
}

/** The front matter entries of the report's own fields, in declaration order. */
export function reportFieldEntries(doc: ReportFields): Array<[string, YamlValue]> {
  return FRONT_MATTER_FIELDS.map(([name, f]): [string, YamlValue] => [name, reportYamlValue(f.shape, doc[name])]);
}

/** Reads one report field from the front matter; `undefined` when the key is absent. */
function readReportValue(r: FieldReader, name: ReportFieldName, shape: ReportFieldShape, value: unknown): unknown {
  const path = `/${name}`;
  switch (shape) {
    case 'title':
      if (value === undefined) r.fail('', `a \`${name}\` key`, `the front matter needs the report's \`${name}\``);
      return r.string(value, path, name);
    case 'reportStatus':
      return value === undefined ? undefined : r.oneOf(value, path, name, REPORT_STATUSES);
    case 'language':
      return value === undefined ? undefined : r.string(value, path, name);
    case 'findingOrder':
      // Why manual without the key: a file written by hand lists its findings in the order meant.
      return value === undefined ? 'manual' : r.oneOf(value, path, name, FINDING_ORDERS);
    case 'markdown':
      throw new Error(`${name} is a part of the file, not a front matter key`);
    default:
      return shape satisfies never;
  }
}

/** The report's own fields from the front matter (Markdown fields empty: they are parts of the file). */
export function readReportFields(r: FieldReader, m: Record<string, unknown>): ReportFields {
  const fields: Record<string, unknown> = REPORT.empty();
  for (const [name, f] of FRONT_MATTER_FIELDS) {
    const value = readReportValue(r, name, f.shape, m[name]);
    if (value !== undefined) fields[name] = value;
  }
  return fields as ReportFields;
}

/** The parts of a report file that hold a report field: `# Summary` and any other Markdown field. */
export const REPORT_FIELD_PARTS: ReadonlyArray<{ name: ReportMarkdownFieldName; part: string }> =
  REPORT_MARKDOWN_FIELDS.map((f) => ({ name: f.name, part: f.label }));

type ProjectEntry = readonly [ReportProjectFieldName, { shape: ProjectFieldShape }];
const PROJECT_ENTRIES = REPORT_PROJECT.entries as ReadonlyArray<ProjectEntry>;
export const REPORT_PROJECT_KEYS: readonly string[] = PROJECT_ENTRIES.map(([name]) => name);

/** The `project` mapping of the front matter: every project field a report carries. */
export function projectYaml(project: ReportProjectFields): YamlValue {
  return Object.fromEntries(PROJECT_ENTRIES.map(([name]) => [name, project[name] as YamlValue]));
}

function readProjectValue(r: FieldReader, name: string, shape: ProjectFieldShape, value: unknown): unknown {
  const path = `/project/${name}`;
  switch (shape) {
    case 'name':
      if (value === undefined)
        r.fail('/project', `a \`${name}\` in \`project\``, `the \`project\` needs a \`${name}\``);
      return r.string(value, path, name);
    case 'projectType':
    case 'date':
      return value === undefined ? undefined : r.stringOrNull(value, path, name);
    case 'markdown':
      return value === undefined ? undefined : r.string(value, path, name);
    case 'projectStatus':
      return value === undefined ? undefined : r.oneOf(value, path, name, PROJECT_STATUSES);
    default:
      return shape satisfies never;
  }
}

/** The project's fields from the front matter's `project` mapping; absent ones take their empty value. */
export function readProjectFields(r: FieldReader, m: Record<string, unknown>): ReportProjectFields {
  const fields: Record<string, unknown> = REPORT_PROJECT.empty();
  for (const [name, f] of PROJECT_ENTRIES) {
    const value = readProjectValue(r, name, f.shape, m[name]);
    if (value !== undefined) fields[name] = value;
  }
  return fields as ReportProjectFields;
}
