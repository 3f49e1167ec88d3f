import {
  ASSET_RETEST_STATUSES,
  RETEST_STATUS_SOURCES,
  RETEST_STATUSES,
  type ReportRef,
  type RetestAsset,
  type RetestInfo,
  type RetestResult,
} from '@service/report-model';
import { evidenceLine } from './evidence-line.ts';
import { type FieldReader, describe } from './field-reader.ts';
import { unknownKeyWarning } from './finding-fields.ts';
import { fencedBlock, textFieldBlock } from './text-field.ts';
import { yamlMappingText, type YamlValue } from './write-yaml.ts';

/**
 * Retests in the report file (docs/markdown-format.md, "Retests"): the front matter's `retest`
 * (round, the round before, the original) and, in each finding of a retest, the sections
 * `### Retest` (a YAML block with the status and the client's risk acceptance, then the retest
 * notes as Markdown), `### Retest assets` (a YAML block per asset with its status, then its retest
 * evidence in a text block) and `### Retest evidence` (the retest's images). Only what differs
 * from the defaults is written, so a file holds the decisions and little else.
 */
export const RETEST_SECTION = 'Retest';
export const RETEST_ASSETS_SECTION = 'Retest assets';
export const RETEST_EVIDENCE_SECTION = 'Retest evidence';
export const RETEST_SECTIONS = [RETEST_SECTION, RETEST_ASSETS_SECTION, RETEST_EVIDENCE_SECTION] as const;

export const RETEST_INFO_KEYS = ['round', 'retestOf', 'original'];
export const RETEST_RESULT_KEYS = [
  'status',
  'statusSetBy',
  'statusNote',
  'retestedAt',
  'riskAccepted',
  'riskAcceptedNote',
];
export const RETEST_ASSET_YAML_KEYS = ['host', 'ip', 'port', 'protocol', 'url', 'parameter', 'status'];

/** The front matter's `retest` value: the round and the titles of the reports it follows. */
export function retestInfoYaml(info: RetestInfo): YamlValue {
  return { round: info.round, retestOf: info.retestOf?.title ?? null, original: info.original?.title ?? null };
}

/** Appends a finding's retest sections to the blocks of the file. */
export function writeRetestSections(blocks: string[], r: RetestResult): void {
  const entries: Array<[string, YamlValue]> = [['status', r.status]];
  // Why only what differs from the default: the common case stays one or two lines.
  if (r.statusSetBy !== 'assets') entries.push(['statusSetBy', r.statusSetBy]);
  if (r.statusNote !== '') entries.push(['statusNote', r.statusNote]);
  if (r.retestedAt !== null) entries.push(['retestedAt', r.retestedAt]);
  if (r.riskAccepted) entries.push(['riskAccepted', true]);
  if (r.riskAcceptedNote !== '') entries.push(['riskAcceptedNote', r.riskAcceptedNote]);
  blocks.push(`### ${RETEST_SECTION}`, fencedBlock('yaml', yamlMappingText(entries)));
  const notes = textFieldBlock(r.notes, 'markdown');
  if (notes !== null) blocks.push(notes);
  if (r.assets.length > 0) {
    blocks.push(`### ${RETEST_ASSETS_SECTION}`);
    for (const a of r.assets) {
      blocks.push(
        fencedBlock(
          'yaml',
          yamlMappingText([
            ['host', a.host],
            ['ip', a.ip],
            ['port', a.port],
            ['protocol', a.protocol],
            ['url', a.url],
            ['parameter', a.parameter],
            ['status', a.status],
          ]),
        ),
      );
      if (a.evidence !== '') blocks.push(textFieldBlock(a.evidence, 'text')!);
    }
  }
  if (r.evidence.length > 0) blocks.push(`### ${RETEST_EVIDENCE_SECTION}`, r.evidence.map(evidenceLine).join('\n\n'));
}

/** The front matter's `retest` mapping. */
export function readRetestInfo(r: FieldReader, value: unknown, warnings: string[]): RetestInfo {
  const m = r.mapping(value, '/retest', '`retest`');
  for (const key of Object.keys(m))
    if (!RETEST_INFO_KEYS.includes(key))
      warnings.push(unknownKeyWarning(r, `/retest/${key}`, key, '`retest`', RETEST_INFO_KEYS));
  if (typeof m.round !== 'number' || !Number.isInteger(m.round) || m.round < 1)
    r.fail(
      '/retest/round',
      'a round number from 1',
      `\`round\` must be the retest round, a whole number from 1, found ${describe(m.round)}`,
    );
  const ref = (key: 'retestOf' | 'original'): ReportRef | null => {
    const title = r.stringOrNull(m[key] ?? null, `/retest/${key}`, key);
    return title === null ? null : { title };
  };
  return { round: m.round, retestOf: ref('retestOf'), original: ref('original') };
}

/** The YAML block of `### Retest`: the result without its notes, assets and evidence. */
export function readRetestYaml(
  r: FieldReader,
  value: unknown,
  warnings: string[],
): Omit<RetestResult, 'notes' | 'assets' | 'evidence'> {
  const m = r.mapping(value, '', 'the YAML block of `### Retest`');
  for (const key of Object.keys(m))
    if (!RETEST_RESULT_KEYS.includes(key))
      warnings.push(unknownKeyWarning(r, `/${key}`, key, 'the YAML block of `### Retest`', RETEST_RESULT_KEYS));
  if (m.status === undefined) r.fail('', 'a `status` key', 'the retest needs a `status`');
  if (m.riskAccepted !== undefined && typeof m.riskAccepted !== 'boolean')
    r.fail(
      '/riskAccepted',
      '`true` or `false`',
      `\`riskAccepted\` must be true or false, found ${describe(m.riskAccepted)}`,
    );
  return {
    status: r.oneOf(m.status, '/status', 'status', RETEST_STATUSES),
    statusSetBy:
      m.statusSetBy === undefined
        ? 'assets'
        : r.oneOf(m.statusSetBy, '/statusSetBy', 'statusSetBy', RETEST_STATUS_SOURCES),
    statusNote: m.statusNote === undefined ? '' : r.string(m.statusNote, '/statusNote', 'statusNote'),
    retestedAt: r.stringOrNull(m.retestedAt ?? null, '/retestedAt', 'retestedAt'),
    riskAccepted: m.riskAccepted === true,
    riskAcceptedNote:
      m.riskAcceptedNote === undefined ? '' : r.string(m.riskAcceptedNote, '/riskAcceptedNote', 'riskAcceptedNote'),
  };
}

/** The YAML block of one retest asset (its evidence, when it has any, follows in a text block). */
export function readRetestAsset(r: FieldReader, value: unknown, warnings: string[]): RetestAsset {
  const m = r.mapping(value, '', 'a retest asset');
  for (const key of Object.keys(m))
    if (!RETEST_ASSET_YAML_KEYS.includes(key))
      warnings.push(unknownKeyWarning(r, `/${key}`, key, 'a retest asset', RETEST_ASSET_YAML_KEYS));
  if (m.status === undefined) r.fail('', 'a `status` key', 'a retest asset needs its `status`');
  const asset: Partial<RetestAsset> = {};
  for (const key of ['host', 'ip', 'protocol', 'url', 'parameter'] as const)
    if (m[key] !== undefined) asset[key] = r.string(m[key], `/${key}`, key);
  if (m.port !== undefined) {
    if (m.port !== null && !(typeof m.port === 'number' && Number.isInteger(m.port)))
      r.fail(
        '/port',
        'a port number or null',
        `\`port\` must be a whole number from 0 to 65535 or null, found ${JSON.stringify(m.port)}`,
      );
    asset.port = m.port as number | null;
  }
  asset.status = r.oneOf(m.status, '/status', 'status', ASSET_RETEST_STATUSES);
  asset.evidence = '';
  // Why rebuild: keys in the order the model and the exporter use, whatever order the file had.
  return Object.fromEntries(
    [...RETEST_ASSET_YAML_KEYS, 'evidence'].filter((k) => k in asset).map((k) => [k, asset[k as keyof RetestAsset]]),
  ) as RetestAsset;
}
