import { Type } from 'typebox';
import { Timestamp, Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import type { ReportRepository } from './reports-repository.ts';

const FindingOrderBody = Type.Object(
  {
    findingIds: Type.Array(Uuid, {
      maxItems: 100_000,
      uniqueItems: true,
      description: 'Every finding of the report, once each, in the order they are to appear.',
    }),
    expectedUpdatedAt: Type.Optional({
      ...Timestamp,
      description: "The report's `updatedAt` you read; if it changed since, nothing is written (409 `conflict`).",
    }),
  },
  { additionalProperties: false },
);

const FindingOrderResult = Type.Object({
  reportId: Uuid,
  findingOrder: Type.Literal('manual'),
  findingIds: Type.Array(Uuid),
  updatedAt: Timestamp,
});

/** `PUT /rest/v1/reports/{id}/finding-order`: a manual order of a report's findings, in one call. */
export function registerFindingOrder(app: AppContext, reports: ReportRepository): void {
  app.registry.addSchema('FindingOrder', FindingOrderResult);
  defineRestRoute(app, {
    method: 'put',
    path: '/rest/v1/reports/{id}/finding-order',
    operationId: 'setReportFindingOrder',
    summary: "Set the order of a report's findings",
    description:
      "Puts the report's findings in the order given and keeps it (`findingOrder` becomes `manual`; set it " +
      'back to `severity` with PATCH to have them sorted worst first again). The list must hold every ' +
      'finding of the report exactly once: a list that misses one or names one the report does not have ' +
      '(someone added or removed a finding since you read it) answers 409 `conflict` listing them, and ' +
      "changes nothing. Edits the report, so its client must be on the key's allow-list.",
    tags: ['Reports'],
    params: Type.Object({ id: Uuid }),
    body: {
      schema: FindingOrderBody,
      example: {
        findingIds: ['0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b', '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f'],
        expectedUpdatedAt: '2026-11-02T09:30:00.000Z',
      },
    },
    responses: {
      200: { description: 'The new order.', schema: 'FindingOrder' },
      409: {
        description:
          'The report changed since `expectedUpdatedAt`, or the list is not exactly its findings ' +
          '(`conflict`; `details` name the missing and unknown ids).',
        schema: 'Error',
      },
    },
    async handler(ctx, { params, body, principal }) {
      ctx.body = await reports.setFindingOrder(principal.tenant, principal, params.id, body.findingIds, {
        expectedUpdatedAt: body.expectedUpdatedAt,
      });
    },
  });
}
