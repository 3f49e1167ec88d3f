import type { Knex } from 'knex';
import {
  RetestAssetListSchema,
  RetestResultProperties,
  RetestStatusSchema,
  SeveritySchema,
  Title,
  Uuid,
  type RetestAsset,
  type RetestStatus,
  type RetestStatusSource,
  type Severity,
} from '@service/report-model';
import { baseFields, dateField } from '../field.ts';
import { declareResource, type Row } from '../resource-declaration.ts';
import { reportChildVisibility } from '../visibility.ts';

/** What a result reads besides its fields: the finding's title and severity (for lists). */
export interface RetestResultExtra {
  finding_title: string;
  finding_severity: Severity;
}

const EXAMPLE_ASSETS: RetestAsset[] = [
  { host: '192.168.2.100', port: 22, protocol: 'tcp', status: 'resolved', evidence: '' },
  {
    host: '192.168.2.101',
    port: 22,
    protocol: 'tcp',
    status: 'unresolved',
    evidence: 'The following weak MAC algorithms are supported :\n\n  hmac-md5\n  hmac-md5-96',
  },
];

/** What the after-PATCH hook reads of the row as it was before the PATCH. */
export interface ChangedRetestRow {
  id: string;
  status: RetestStatus;
  status_set_by: RetestStatusSource;
  assets: RetestAsset[];
}

export function retestResultsDeclaration(hooks: {
  /** After a PATCH: who set the status, the status that follows from the assets, the day. */
  afterChange(
    trx: Knex.Transaction,
    row: ChangedRetestRow,
    changed: Record<string, unknown>,
    sent: Record<string, unknown>,
  ): Promise<void>;
}) {
  return declareResource<RetestResultExtra>()({
    name: 'retest-results',
    schemaName: 'RetestResult',
    label: 'retest result',
    tag: 'Retests',
    description:
      'Retests are reports of their own (`kind: retest`), made with `POST /reports/{id}/retests`. Each finding of ' +
      'a retest has a retest result: its status (`not_retested`, `resolved`, `partially_resolved`, `unresolved`, ' +
      '`new`), notes, a status per affected asset with the evidence of the retest, and the risk the client ' +
      'accepted. A re-scan imported into the retest (`POST /reports/{id}/import-scan`) decides the asset statuses; ' +
      'the finding status follows from them unless a person sets it (`statusSetBy: person`, kept by later imports). ' +
      'Retest evidence images are uploaded with `retestResultId`. Results come and go with the findings of the ' +
      'retest report; changing one edits the report (client allow-list).',
    table: 'retest_results',
    visibility: reportChildVisibility,
    concurrency: true,
    searchable: false,
    operations: { create: false, delete: false },
    fields: {
      ...baseFields,
      reportId: { column: 'report_id', schema: { ...Uuid, description: 'The retest report.' } },
      findingId: { column: 'finding_id', schema: { ...Uuid, description: 'The finding.' } },
      status: { column: 'status', schema: RetestResultProperties.status, update: true },
      statusSetBy: {
        column: 'status_set_by',
        schema: {
          ...RetestResultProperties.statusSetBy,
          description:
            '`assets`: the status follows from the asset statuses (every import and asset change updates it); ' +
            '`person`: a person set it and imports keep it. Setting `status` makes it `person`; set `assets` to ' +
            'hand the status back to the assets.',
        },
        update: true,
      },
      statusNote: { column: 'status_note', schema: RetestResultProperties.statusNote, update: true },
      notes: { column: 'notes', schema: RetestResultProperties.notes, update: true },
      retestedAt: {
        ...dateField('retested_at', RetestResultProperties.retestedAt),
        create: undefined,
      },
      riskAccepted: { column: 'risk_accepted', schema: RetestResultProperties.riskAccepted, update: true },
      riskAcceptedNote: {
        column: 'risk_accepted_note',
        schema: RetestResultProperties.riskAcceptedNote,
        update: true,
      },
      assets: {
        column: 'assets',
        schema: {
          ...RetestAssetListSchema,
          description:
            'One entry per affected asset: its place, its retest status and the evidence of the retest. A PATCH ' +
            'replaces the list.',
        },
        update: true,
        json: true,
      },
    },
    extraResponse: {
      findingTitle: { ...Title(), description: "The finding's title." },
      severity: { ...SeveritySchema, description: "The finding's severity (as in the original report)." },
    },
    extraSelect: (db) => [
      db.raw('(select f.title from findings f where f.id = r.finding_id) as finding_title'),
      db.raw('(select f.severity from findings f where f.id = r.finding_id) as finding_severity'),
    ],
    present: (row) => ({ findingTitle: row.finding_title, severity: row.finding_severity }),
    order: [
      ['r.created_at', 'asc'],
      ['r.finding_id', 'asc'],
    ],
    filters: {
      report_id: {
        schema: Uuid,
        description: 'Only the results of this retest report.',
        apply: (q, v: string) => void q.where('r.report_id', v),
      },
      finding_id: {
        schema: Uuid,
        description: 'Only the results of this finding (one per retest round it is in).',
        apply: (q, v: string) => void q.where('r.finding_id', v),
      },
      status: {
        schema: RetestStatusSchema,
        description: 'Only results with this retest status.',
        apply: (q, v: RetestStatus) => void q.where('r.status', v),
      },
    },
    // What the document's example shows; ids, times and the rest are generated from the schemas.
    responseExample: {
      status: 'partially_resolved',
      statusSetBy: 'assets',
      notes: 'Retested with the original Nessus policy on 20 November.',
      retestedAt: '2026-11-20',
      assets: EXAMPLE_ASSETS,
      findingTitle: 'SSH Weak MAC Algorithms Enabled',
      severity: 'low',
    },
    // A person's review: the status set with a note (imports keep it), and the risk the client accepted.
    updateExample: {
      status: 'resolved',
      statusNote: 'Signing enforced by GPO on 19 November; the scanner policy predates it.',
      notes: 'Checked by hand with `smbclient --option="client signing=off"`: refused.',
      riskAccepted: false,
      expectedUpdatedAt: '2026-11-20T10:12:44.318Z',
    },
    async afterUpdate({ trx, row, changed, sent }) {
      await hooks.afterChange(trx, row, changed, sent);
    },
  });
}

export type RetestResultsDeclaration = ReturnType<typeof retestResultsDeclaration>;
export type RetestResultRow = Row<RetestResultsDeclaration['fields'], RetestResultExtra>;
