import {
  FINDING_STATUSES,
  FINDING_SOURCE_KINDS,
  SEVERITIES_DESCENDING,
  scoreCvssVector,
  type Cvss,
  type CvssVersion,
  type Finding,
  type FindingContent,
  type FindingSource,
} from '@service/report-model';
import { FieldReader, describe } from './field-reader.ts';
import { isHeadingSafe } from './heading-title.ts';
import type { YamlLayout, YamlValue } from './write-yaml.ts';

/**
 * The structured fields of a finding, shared by the finding file (front matter) and the finding
 * block of a report export (a ```yaml block under the finding's heading): same keys, same order,
 * same values. The report adds `status` and `source`.
 */

/** The text sections of a finding, in the order they are written. */
export const FINDING_SECTIONS = [
  { field: 'description', heading: 'Description' },
  { field: 'impact', heading: 'Impact' },
  { field: 'remediation', heading: 'Remediation' },
] as const;

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

/** The YAML entries of a finding's structured fields; `report` adds status and source. */
export function findingYamlEntries(
  f: FindingContent & Partial<Pick<Finding, 'status' | 'source'>>,
  report: boolean,
): Array<[string, YamlValue]> {
  const entries: Array<[string, YamlValue]> = [];
  if (!isHeadingSafe(f.title)) entries.push(['title', f.title]);
  entries.push(['severity', f.severity]);
  if (report) entries.push(['status', f.status]);
  entries.push(['cvss', f.cvss.map(cvssYaml)], ['cves', f.cves], ['cwes', f.cwes], ['references', f.references]);
  if (report && f.source) entries.push(['source', sourceYaml(f.source)]);
  return entries;
}

export const FINDING_FILE_KEYS = ['title', 'severity', 'cvss', 'cves', 'cwes', 'references'] as const;
export const REPORT_FINDING_KEYS = [
  'title',
  'severity',
  'status',
  'cvss',
  'cves',
  'cwes',
  'references',
  'source',
] as const;

export interface FindingFields {
  title?: string;
  severity: Finding['severity'];
  status?: Finding['status'];
  cvss: Cvss[];
  cves: string[];
  cwes: number[];
  references: string[];
  source?: FindingSource;
}

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

/**
 * Reads a finding's structured fields from a YAML mapping. Keys not in `known` are returned in
 * `unknown` in their order (the finding file hands them to the caller; the report warns about them).
 */
export function readFindingFields(
  r: FieldReader,
  value: unknown,
  known: readonly string[],
  warnings: string[],
): { fields: FindingFields; unknown: Array<[string, unknown]> } {
  const m = r.mapping(value, '', r.what);
  const unknown: Array<[string, unknown]> = [];
  for (const [key, v] of Object.entries(m)) if (!known.includes(key)) unknown.push([key, v]);
  if (!('severity' in m))
    r.fail(
      '',
      `a \`severity\` key (${SEVERITY_LIST.join(', ')})`,
      `${r.what} needs a \`severity\`: one of ${SEVERITY_LIST.join(', ')}`,
    );
  const fields: FindingFields = {
    severity: r.oneOf(m.severity, '/severity', 'severity', SEVERITY_LIST),
    cvss:
      m.cvss === undefined
        ? []
        : r.list(m.cvss, '/cvss', 'cvss', '[CVSS:3.1/AV:N/...]').map((c, i) => readCvss(r, c, `/cvss/${i}`, warnings)),
    cves:
      m.cves === undefined
        ? []
        : r.list(m.cves, '/cves', 'cves', '[CVE-2021-44228]').map((c, i) => r.string(c, `/cves/${i}`, 'cves')),
    cwes:
      m.cwes === undefined
        ? []
        : r.list(m.cwes, '/cwes', 'cwes', '[79, 89]').map((c, i) => readCwe(r, c, `/cwes/${i}`)),
    references:
      m.references === undefined
        ? []
        : r
            .list(m.references, '/references', 'references', '[https://...]')
            .map((c, i) => r.string(c, `/references/${i}`, 'references')),
  };
  if (m.title !== undefined && known.includes('title')) fields.title = r.string(m.title, '/title', 'title');
  if (known.includes('status') && m.status !== undefined)
    fields.status = r.oneOf(m.status, '/status', 'status', FINDING_STATUSES);
  if (known.includes('source') && m.source !== undefined) fields.source = readSource(r, m.source, '/source', warnings);
  return { fields, unknown };
}
