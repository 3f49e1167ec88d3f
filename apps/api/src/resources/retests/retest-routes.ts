import { Type } from 'typebox';
import { PAGINATION_HEADERS, PaginationQuery, setPaginationHeaders, toPage } from '@service/http';
import {
  AssetRetestStatusSchema,
  RetestStatusSchema,
  RetestStatusSourceSchema,
  Title,
  Uuid,
} from '@service/report-model';
import { withinBulkLimit } from '../bulk-work.ts';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from '../idempotent-create.ts';
import type { ReportRepository } from '../reports/reports-repository.ts';
import { exampleRow } from '../resource-example.ts';
import type { RetestService } from './retest-service.ts';

const CreateRetestBody = Type.Object(
  {
    title: Type.Optional({
      ...Title(),
      description: 'The title of the retest; default "Retest: <original title>" ("Retest 2: ..." for round 2).',
    }),
  },
  { additionalProperties: false },
);

const NOT_FOUND = {
  description:
    '`not_found`: the report does not exist or you may not see it (the same answer for both; external ' +
    'collaborators see only reports and projects shared with them).',
  schema: 'Error',
} as const;

/** What a re-scan decided for the findings of a retest: the `retest` part of an import's answer. */
export const RetestImportSummarySchema = Type.Object(
  {
    round: Type.Integer({ minimum: 1 }),
    changed: Type.Integer({ description: 'Findings whose retest result changed.' }),
    unchanged: Type.Integer({
      description: 'Findings of the scanner that ran whose result stayed as it was (a re-import of the same file).',
    }),
    notDecided: Type.Integer({
      description: "Findings the scan says nothing about: other scanners' findings and findings typed by hand.",
    }),
    created: Type.Integer({ description: 'Findings first seen in this import (retest status `new`).' }),
    coverage: Type.Object(
      {
        hosts: Type.Integer(),
        ports: Type.Integer({ description: 'Host and port pairs.' }),
        origins: Type.Integer({ description: 'Web origins (scheme, host and port).' }),
      },
      { description: 'What the scan covered (see the guide: "covered" per scanner).' },
    ),
    findings: Type.Array(
      Type.Object({
        id: Uuid,
        title: Type.String(),
        before: RetestStatusSchema,
        after: RetestStatusSchema,
        statusSetBy: RetestStatusSourceSchema,
        changed: Type.Boolean(),
        reason: Type.String({ description: 'Why the status is what it is, in one sentence.' }),
        assets: Type.Array(
          Type.Object({
            host: Type.Optional(Type.String()),
            ip: Type.Optional(Type.String()),
            port: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
            protocol: Type.Optional(Type.String()),
            url: Type.Optional(Type.String()),
            parameter: Type.Optional(Type.String()),
            before: Type.Union([AssetRetestStatusSchema, Type.Null()], {
              description: 'null: the asset was not part of the finding before.',
            }),
            after: AssetRetestStatusSchema,
            reason: Type.Enum(['still_reported', 'no_longer_reported', 'first_seen'], {
              description:
                '`still_reported`: a rule of the finding is reported on this asset again (its evidence is the ' +
                'retest evidence); `no_longer_reported`: the scan covered the asset and the rule is not reported ' +
                'there; `first_seen`: the rule is reported on an asset the finding did not have.',
            }),
            rules: Type.Array(Type.String(), { description: 'The rules reported here: `nessus:71049`.' }),
          }),
          { description: 'The assets whose status or retest evidence changed.' },
        ),
        assetsNotCovered: Type.Integer({ description: 'Assets the scan did not cover; they keep their status.' }),
      }),
      {
        description:
          'Every finding the scan could decide (its rules come from the scanner that ran), with what changed and why.',
      },
    ),
  },
  {
    description:
      'Only for a retest report: the re-scan decided the findings it has instead of merging into them (the ' +
      '`findings` list above then holds the results with no finding: those were created as `new` findings).',
  },
);

/**
 * `POST /rest/v1/reports/{id}/retests` (the next round of a report) and
 * `GET /rest/v1/reports/{id}/retests` (the rounds of an original report).
 */
export function registerRetestRoutes(app: AppContext, retests: RetestService, reports: ReportRepository): void {
  // The report's fields come from its declaration; only what makes it a retest is said here.
  const exampleRetest = exampleRow(reports.declaration, {
    title: 'Retest: External penetration test',
    templateId: '6c5b4a39-2817-4f6e-9d8c-7b6a5f4e3d2c',
    kind: 'retest',
    round: 1,
    retestOf: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
    originalReportId: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
  });
  defineRestRoute(app, {
    method: 'post',
    path: '/rest/v1/reports/{id}/retests',
    heavy: 'A retest (it copies every finding of the round before)',
    operationId: 'createRetest',
    summary: 'Create the retest of a report',
    description:
      'A new report of kind `retest` in the same project: round 1 of a report, or the next round of a retest ' +
      '(`round` 2, 3, ..., `retestOf` the round before, `originalReportId` the original). Its tabs come from ' +
      "the retest report template of the project's type (`projectType` naming a project type), else the " +
      "library's `retest-report`, else a retest summary, scope and method; its style is that of the round " +
      'before. Every finding of the round before is carried over with a fresh retest result: `not_retested`, ' +
      'no notes, no retest evidence, every affected asset `not_retested`. Import the re-scan with `POST ' +
      '/reports/{retestId}/import-scan`, review the results (`/retest-results`), and export. This edits the ' +
      "report's client (the key's allow-list must hold it), and needs the right to create reports in the " +
      'project (external collaborators: an `edit` share of the project). Send `Idempotency-Key` to make a ' +
      'retry safe. The body is optional.',
    tags: ['Retests'],
    params: Type.Object({ id: Uuid }),
    headers: [IDEMPOTENCY_HEADER],
    body: { schema: CreateRetestBody, required: false, example: { title: 'Retest: External penetration test' } },
    responses: {
      201: {
        description: 'The retest report.',
        schema: 'Report',
        headers: { Location: { description: 'The retest report.' } },
        example: exampleRetest,
      },
      403: {
        description:
          "`read_only_key` (a read-only key cannot create a retest); `client_not_allowed` (the report's client is " +
          "not on the key's allow-list: a retest edits the client); `forbidden` (the key owner's role may not create " +
          'reports, or an external collaborator has the report shared but not its project with `edit`: the retest ' +
          'is a new report in the project); `api_not_licensed` (the licence or plan does not include the REST API).',
        schema: 'Error',
      },
      404: NOT_FOUND,
      ...IDEMPOTENCY_RESPONSES,
    },
    async handler(ctx, { params, body, principal }) {
      await runIdempotentCreate(ctx, principal, {
        body: body ?? {},
        work: async (trx) => {
          const row = await withinBulkLimit(trx, app.deps.config.bulkStatementTimeoutMs, 'Creating the retest', () =>
            retests.createRetest(trx, principal, params.id, { title: body?.title }),
          );
          return {
            status: 201,
            headers: { Location: `/rest/v1/reports/${row.id}` },
            body: reports.present(row as never),
          };
        },
        stillVisible: async (stored) =>
          (await reports.find(principal.tenant, principal, String((stored as { id?: unknown }).id))) !== null,
      });
    },
  });

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/reports/{id}/retests',
    operationId: 'listRetests',
    summary: 'List the retest rounds of a report',
    description:
      'The retests of the original report (given the original or any of its rounds), round 1 first, as far ' +
      'as you can see them, with the pagination headers. The same rows as `GET /reports?original_report_id=`.',
    tags: ['Retests'],
    params: Type.Object({ id: Uuid }),
    query: Type.Object(PaginationQuery),
    responses: {
      200: {
        description: 'One page of retest reports, by round.',
        schema: { arrayOf: 'Report' },
        headers: PAGINATION_HEADERS,
        example: [exampleRetest],
      },
      404: NOT_FOUND,
    },
    async handler(ctx, { params, query, principal }) {
      const report = await reports.require(principal.tenant, principal, params.id, 'read');
      const page = toPage(query);
      const { rows, total } = await reports.list(principal.tenant, principal, {
        filters: {
          original_report_id: report.kind === 'retest' ? (report.original_report_id ?? report.id) : report.id,
        },
        offset: page.offset,
        limit: page.perPage,
      });
      setPaginationHeaders(ctx, page, total);
      ctx.body = rows.map((r) => reports.present(r));
    },
  });
}
