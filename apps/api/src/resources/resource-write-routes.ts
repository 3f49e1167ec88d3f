import { Type, type TSchema } from 'typebox';
import type { ResponseDoc } from '@service/http';
import { Timestamp } from '@service/report-model';
import { defineRestRoute } from '../rest/define-rest-route.ts';
import { createSchema, updateSchema } from './field.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from './idempotent-create.ts';
import type { ResourceDeclaration } from './resource-declaration.ts';
import { IdParams, type ResourceRouteContext } from './resource-route-context.ts';

const CONFLICT_RESPONSE: Record<number, ResponseDoc> = {
  409: {
    description:
      'The row changed since `expectedUpdatedAt` (`conflict`); nothing was written. ' +
      '`details[0].value` is the current `updatedAt`.',
    schema: 'Error',
  },
};
const INVALID_REFERENCE_RESPONSE: Record<number, ResponseDoc> = {
  422: {
    description:
      'A field names a row that does not exist or is not visible to you (`invalid_reference`, naming the field).',
    schema: 'Error',
  },
};

/** `responses` with more error answers: a status both have says both. */
function withAnswers(
  responses: Record<number, ResponseDoc>,
  more: Record<number, string> = {},
): Record<number, ResponseDoc> {
  const all = { ...responses };
  for (const [status, description] of Object.entries(more)) {
    const known = all[Number(status)];
    all[Number(status)] = {
      schema: 'Error',
      description: known ? `${known.description} Or: ${description}` : description,
    };
  }
  return all;
}

/** POST /rest/v1/<name>: creates a row, idempotent with `Idempotency-Key`. */
export function defineCreateRoute(
  { app, repository, decl, base, example }: ResourceRouteContext,
  create: NonNullable<ResourceDeclaration['create']>,
): void {
  defineRestRoute(app, {
    method: 'post',
    path: base,
    operationId: decl.operationIds?.create ?? `create${decl.schemaName}`,
    summary: `Create a ${decl.label}`,
    description: `Creates a ${decl.label}. Send \`Idempotency-Key\` to make a retry safe.`,
    tags: [decl.tag],
    headers: [IDEMPOTENCY_HEADER],
    body: { schema: createSchema(decl.fields, create.extra, create.bodyRules), example: create.example },
    responses: {
      201: {
        description: 'Created.',
        schema: decl.schemaName,
        headers: { Location: { description: 'The new row.' } },
        example,
      },
      ...withAnswers(IDEMPOTENCY_RESPONSES, create.responses),
    },
    async handler(ctx, { body, principal }) {
      await runIdempotentCreate(ctx, principal, {
        body,
        work: async (trx) => {
          const row = await repository.create(trx, principal, body as Record<string, unknown>);
          return { status: 201, headers: { Location: `${base}/${row.id}` }, body: repository.present(row) };
        },
        // Why: a replay answers with what the caller may see now (a share may have ended since).
        stillVisible: async (stored) =>
          (await repository.find(principal.tenant, principal, String((stored as { id?: unknown }).id))) !== null,
      });
    },
  });
}

/** The PATCH body: the updatable fields, and `expectedUpdatedAt` where the resource declares concurrency. */
function updateBody(decl: ResourceDeclaration) {
  return updateSchema(
    decl.fields,
    decl.concurrency
      ? {
          expectedUpdatedAt: Type.Optional({
            ...Timestamp,
            description:
              'The `updatedAt` you read; if the row changed since, nothing is written and the ' +
              'answer is 409 `conflict`.',
          } as TSchema),
        }
      : {},
  );
}

/** PATCH /rest/v1/<name>/{id}: changes the fields sent, conditional on `expectedUpdatedAt` where declared. */
export function defineUpdateRoute({ app, repository, decl, base, example }: ResourceRouteContext): void {
  defineRestRoute(app, {
    method: 'patch',
    path: `${base}/{id}`,
    operationId: decl.operationIds?.update ?? `update${decl.schemaName}`,
    summary: `Change a ${decl.label}`,
    description: `Changes the fields you send; absent fields keep their value. A GET body restricted to these fields can be sent back as is.${
      decl.concurrency
        ? ' Send `expectedUpdatedAt` to make the change conditional on nobody having ' +
          'changed the row since you read it.'
        : ''
    }`,
    tags: [decl.tag],
    params: IdParams,
    body: { schema: updateBody(decl), example: decl.updateExample },
    responses: {
      200: { description: 'The changed row.', schema: decl.schemaName, example },
      ...(decl.concurrency ? CONFLICT_RESPONSE : {}),
      ...(Object.values(decl.fields).some((f) => f.update && f.references) ? INVALID_REFERENCE_RESPONSE : {}),
    },
    async handler(ctx, { params, body, principal }) {
      const { expectedUpdatedAt, ...changes } = body as Record<string, unknown> & { expectedUpdatedAt?: string };
      ctx.body = repository.present(
        await repository.update(principal.tenant, principal, params.id, changes, { expectedUpdatedAt }),
      );
    },
  });
}

/** DELETE /rest/v1/<name>/{id}: into the trash where the resource has one, else permanently. */
export function defineDeleteRoute({ app, repository, decl, base }: ResourceRouteContext): void {
  defineRestRoute(app, {
    method: 'delete',
    path: `${base}/{id}`,
    operationId: decl.operationIds?.delete ?? `delete${decl.schemaName}`,
    summary: decl.trash ? `Move a ${decl.label} to the trash` : `Delete a ${decl.label} permanently`,
    description: decl.trash
      ? 'What belongs to it disappears from lists and answers 404 too; an administrator can restore it whole. ' +
        `Safe to retry: deleting a ${decl.label} you moved to the trash yourself answers 204 again, as long as ` +
        'you may still delete it; for anyone else it answers 404 like any row they cannot see.'
      : 'Not recoverable. Not safe to retry: once it is deleted, the same request answers 404.',
    tags: [decl.tag],
    params: IdParams,
    retrySafe: decl.trash === true,
    responses: {
      204: { description: decl.trash ? 'Moved to the trash (now, or by you before).' : 'Deleted.' },
    },
    async handler(ctx, { params, principal }) {
      await repository.remove(principal.tenant, principal, params.id);
      ctx.status = 204;
    },
  });
}
