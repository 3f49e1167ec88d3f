import {
  FINDING_FIELDS,
  FINDING_MARKDOWN_FIELDS,
  FINDING_SOURCE_KINDS,
  FINDING_STATUSES,
  SEVERITIES_DESCENDING,
  scoreCvssVector,
  type Cvss,
  type CvssVersion,
  type Finding,
  type FindingContent,
  type FindingContentFieldName,
  type FindingMarkdownFieldName,
  type FindingFieldDeclaration,
  type FindingFieldName,
  type FindingFieldShape,
  type FindingSource,
} from '@service/report-model';
import { type FieldReader, describe } from './field-reader.ts';
import { isHeadingSafe } from './heading-title.ts';
import type { YamlLayout, YamlValue } from './write-yaml.ts';

/**
 * The structured fields of a finding, shared by the finding file (front matter) and the finding
 * block of a report export (a ```yaml block under the finding's heading): same keys, same order,
 * same values. The report adds `status` and `source`.
 */

/** The Markdown text fields of a finding, each a section under its heading, in declaration order. */
export const FINDING_SECTIONS = FINDING_MARKDOWN_FIELDS.map((f) => ({ field: f.name, heading: f.label, part: f.part }));
/** The sections of a finding file (a library template): the text a template shares with findings. */
export const FINDING_FILE_SECTIONS = FINDING_SECTIONS.filter(
  (s): s is typeof s & { field: FindingMarkdownFieldName & FindingContentFieldName } => s.part === 'content',
);

export const FINDING_YAML_LAYOUT: YamlLayout = { flowLists: new Set(['cves', 'cwes']) };

const SEVERITY_LIST = SEVERITIES_DESCENDING as readonly Finding['severity'][];

const shorthandCache = new Map<string, { version: CvssVersion; base: number } | null>();

/** Version and base score a vector written alone stands for, or null when it does not score. */
function scoreShorthand(vector: string): { version: CvssVersion; base: number } | null {
  let scored = shorthandCache.get(vector);
  if (scored === undefined) {
    try {
      const s = scoreCvssVector(vector);
      scored = { version: s.version, base: s.base };
    } catch {
      scored = null;
    }
    if (shorthandCache.size > 10_000) shorthandCache.clear();
    shorthandCache.set(vector, scored);
  }
  return scored;
}

/**
 * A CVSS entry as YAML: the bare vector when it says everything (its version and base score are what
 * the vector computes to, no temporal fields), else a mapping with every field.
 */
export function cvssYaml(c: Cvss): YamlValue {
  if (c.vector !== null && c.baseScore !== null && c.temporalScore === undefined && c.temporalVector === undefined) {
    const scored = scoreShorthand(c.vector);
    if (scored && scored.version === c.version && scored.base === c.baseScore) return c.vector;
  }
  return {
    version: c.version,
    vector: c.vector,
    baseScore: c.baseScore,
    temporalScore: c.temporalScore,
    temporalVector: c.temporalVector,
  };
}

function sourceYaml(s: FindingSource): YamlValue {
  // Why no templateId: it is a database id, and files never carry those (templateKey names the template).
  return {
    kind: s.kind,
    templateKey: s.templateKey,
    scanner: s.scanner,
    scannerVersion: s.scannerVersion,
    ruleId: s.ruleId,
  };
}

/** Whether a field is written in the YAML block (the rest are sections of their own). */
function inYaml(shape: FindingFieldShape): boolean {
  switch (shape) {
    case 'title':
    case 'severity':
    case 'status':
    case 'cvss':
    case 'cveList':
    case 'cweList':
    case 'referenceList':
    case 'source':
    case 'note':
      return true;
    case 'markdown':
    case 'assets':
      return false;
    default:
      return shape satisfies never;
  }
}

const YAML_FIELDS = (Object.entries(FINDING_FIELDS) as Array<[FindingFieldName, FindingFieldDeclaration]>).filter(
  ([, f]) => inYaml(f.shape),
);

/** The keys of a finding file's front matter (its content) and of a report finding's YAML block (every field). */
export const FINDING_FILE_KEYS: readonly FindingFieldName[] = YAML_FIELDS.filter(([, f]) => f.part === 'content').map(
  ([name]) => name,
);
export const REPORT_FINDING_KEYS: readonly FindingFieldName[] = YAML_FIELDS.map(([name]) => name);

/** One field's value as YAML, or undefined to leave it out. */
function yamlValue(shape: FindingFieldShape, value: unknown): YamlValue | undefined {
  switch (shape) {
    case 'title':
      // Why: the heading holds the title; the YAML repeats it only when a heading cannot.
      return isHeadingSafe(value as string) ? undefined : (value as string);
    case 'severity':
    case 'status':
      return value as string;
    case 'cvss':
      return (value as Cvss[]).map(cvssYaml);
    case 'cveList':
    case 'referenceList':
      return value as string[];
    case 'cweList':
      return value as number[];
    case 'source':
      return sourceYaml(value as FindingSource);
    case 'note':
      // Why left out when empty: a note is usually absent, and files stay as they were without one.
      return value === '' ? undefined : (value as string);
    case 'markdown':
    case 'assets':
      return undefined;
    default:
      return shape satisfies never;
  }
}

/** The YAML entries of a finding's structured fields: its content, and with `report` every field. */
export function findingYamlEntries(f: Partial<Finding> & FindingContent, report: boolean): Array<[string, YamlValue]> {
  const entries: Array<[string, YamlValue]> = [];
  for (const [name, field] of YAML_FIELDS) {
    if (!report && field.part !== 'content') continue;
    const value = f[name];
    if (value === undefined) continue;
    const yaml = yamlValue(field.shape, value);
    if (yaml !== undefined) entries.push([name, yaml]);
  }
  return entries;
}

/** The structured fields read from a YAML block: the title when it is there, the rest with their defaults. */
export type FindingFields = Partial<Finding> & Pick<Finding, 'severity'>;

const CVSS_KEYS = ['version', 'vector', 'baseScore', 'temporalScore', 'temporalVector'];
const SOURCE_KEYS = ['kind', 'templateKey', 'scanner', 'scannerVersion', 'ruleId'];

function readCvssVersion(r: FieldReader, value: unknown, path: string): CvssVersion {
  // Why numbers too: a person writes `version: 3.1`, which YAML reads as a number.
  const text = typeof value === 'number' ? value.toFixed(1) : value;
  return r.oneOf(text, path, 'version', ['2.0', '3.0', '3.1', '4.0'] as const);
}

function readCvss(r: FieldReader, value: unknown, path: string, warnings: string[]): Cvss {
  if (typeof value === 'string') {
    const scored = scoreShorthand(value);
    if (!scored) {
      let reason = 'it does not parse';
      try {
        scoreCvssVector(value);
      } catch (err) {
        reason = (err as Error).message;
      }
      r.fail(
        path,
        'a CVSS vector (`CVSS:3.1/AV:N/...`) or a mapping with version, vector and baseScore',
        `${reason}; write a full vector, or a mapping with \`version\`, \`vector\` and \`baseScore\``,
      );
    }
    return { version: scored.version, vector: value, baseScore: scored.base };
  }
  const m = r.mapping(value, path, 'a CVSS entry');
  for (const key of Object.keys(m))
    if (!CVSS_KEYS.includes(key)) warnings.push(unknownKeyWarning(r, `${path}/${key}`, key, 'CVSS entry', CVSS_KEYS));
  if (!('version' in m))
    r.fail(path, 'a `version` key', 'this CVSS entry needs a `version` ("2.0", "3.0", "3.1" or "4.0")');
  const entry: Cvss = {
    version: readCvssVersion(r, m.version, `${path}/version`),
    vector: r.stringOrNull(m.vector ?? null, `${path}/vector`, 'vector'),
    baseScore: r.numberOrNull(m.baseScore ?? null, `${path}/baseScore`, 'baseScore'),
  };
  if ('temporalScore' in m)
    entry.temporalScore = r.numberOrNull(m.temporalScore, `${path}/temporalScore`, 'temporalScore');
  if ('temporalVector' in m)
    entry.temporalVector = r.stringOrNull(m.temporalVector, `${path}/temporalVector`, 'temporalVector');
  return entry;
}

function readCwe(r: FieldReader, value: unknown, path: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  const m = typeof value === 'string' ? /^(?:CWE-)?(\d{1,6})$/i.exec(value.trim()) : null;
  if (!m)
    r.fail(
      path,
      'a CWE number such as 79 or "CWE-79"',
      `a CWE must be a number such as 79 or "CWE-79", found ${describe(value)}`,
    );
  return Number(m[1]);
}

function readSource(r: FieldReader, value: unknown, path: string, warnings: string[]): FindingSource {
  const m = r.mapping(value, path, '`source`');
  for (const key of Object.keys(m))
    if (!SOURCE_KEYS.includes(key)) warnings.push(unknownKeyWarning(r, `${path}/${key}`, key, '`source`', SOURCE_KEYS));
  const source: FindingSource = { kind: r.oneOf(m.kind, `${path}/kind`, 'kind', FINDING_SOURCE_KINDS) };
  for (const key of ['templateKey', 'scanner', 'scannerVersion', 'ruleId'] as const) {
    if (m[key] !== undefined) source[key] = r.string(m[key], `${path}/${key}`, key);
  }
  return source;
}

export function unknownKeyWarning(
  r: FieldReader,
  path: string,
  key: string,
  where: string,
  known: readonly string[],
): string {
  const at = r.block.keys.get(path) ?? r.position(path);
  return (
    `line ${at.line}, column ${at.column}: unknown key \`${key}\` in ${where} ignored ` +
    `(known keys: ${known.join(', ')})`
  );
}

/** Reads one field's value from YAML, by its shape. */
function readYamlValue(
  r: FieldReader,
  name: FindingFieldName,
  shape: FindingFieldShape,
  value: unknown,
  warnings: string[],
): unknown {
  const path = `/${name}`;
  switch (shape) {
    case 'title':
      return r.string(value, path, name);
    case 'severity':
      return r.oneOf(value, path, name, SEVERITY_LIST);
    case 'status':
      return r.oneOf(value, path, name, FINDING_STATUSES);
    case 'cvss':
      return r.list(value, path, name, '[CVSS:3.1/AV:N/...]').map((c, i) => readCvss(r, c, `${path}/${i}`, warnings));
    case 'cveList':
      return r.list(value, path, name, '[CVE-2021-44228]').map((c, i) => r.string(c, `${path}/${i}`, name));
    case 'cweList':
      return r.list(value, path, name, '[79, 89]').map((c, i) => readCwe(r, c, `${path}/${i}`));
    case 'referenceList':
      return r.list(value, path, name, '[https://...]').map((c, i) => r.string(c, `${path}/${i}`, name));
    case 'source':
      return readSource(r, value, path, warnings);
    case 'note':
      return r.string(value, path, name);
    case 'markdown':
    case 'assets':
      throw new Error(`${name} is not read from YAML`);
    default:
      return shape satisfies never;
  }
}

/**
 * Reads a finding's structured fields from a YAML mapping: the `known` keys (a severity is
 * required; a missing title stays absent, other missing fields take their empty value). Keys not
 * in `known` are returned in `unknown` in their order (the finding file hands them to the caller;
 * the report warns about them).
 */
export function readFindingFields(
  r: FieldReader,
  value: unknown,
  known: readonly FindingFieldName[],
  warnings: string[],
): { fields: FindingFields; unknown: Array<[string, unknown]> } {
  const m = r.mapping(value, '', r.what);
  const unknown: Array<[string, unknown]> = [];
  for (const [key, v] of Object.entries(m)) if (!(known as readonly string[]).includes(key)) unknown.push([key, v]);
  if (!('severity' in m))
    r.fail(
      '',
      `a \`severity\` key (${SEVERITY_LIST.join(', ')})`,
      `${r.what} needs a \`severity\`: one of ${SEVERITY_LIST.join(', ')}`,
    );
  const fields: Record<string, unknown> = {};
  for (const [name, field] of YAML_FIELDS) {
    if (!known.includes(name)) continue;
    if (m[name] !== undefined) fields[name] = readYamlValue(r, name, field.shape, m[name], warnings);
    else if (field.shape !== 'title') fields[name] = field.empty();
  }
  return { fields: fields as FindingFields, unknown };
}
