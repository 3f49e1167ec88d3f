import type { Context } from 'koa';
import type { Knex } from 'knex';
import {
  NotFoundError,
  requestFingerprint,
  runIdempotent,
  validateIdempotencyKey,
  type ResponseDoc,
  type StoredResponse,
} from '@service/http';
import { callerIdOf, type RestPrincipal } from '../rest/rest-pipeline.ts';

export const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  description:
    'Makes a retry safe: the same key and request within 24 hours returns the ' +
    'original response with `Idempotent-Replayed: true` and creates nothing. 1 to 255 ' +
    'printable ASCII characters; per API key.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]{1,255}$' },
};

export const IDEMPOTENCY_RESPONSES: Record<number, ResponseDoc> = {
  409: {
    description: 'The same `Idempotency-Key` is still being processed (`idempotency_in_progress`).',
    schema: 'Error',
  },
  422: {
    description:
      'The `Idempotency-Key` was used for a different request ' +
      '(`idempotency_key_reused`), or a body field names a row that does not exist or ' +
      'is not visible (`invalid_reference`).',
    schema: 'Error',
  },
};

/**
 * The request's `Idempotency-Key`, or null when the header is absent. A header that is present
 * but empty or malformed is refused with 400 `invalid_idempotency_key`, never silently ignored.
 */
export function idempotencyKeyOf(ctx: Context): string | null {
  const raw = ctx.headers['idempotency-key'];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? raw.join(',') : raw;
  validateIdempotencyKey(key);
  return key;
}

/**
 * Runs a creating request idempotently (SPEC: "the creating endpoints accept the request header
 * Idempotency-Key"), or a restore from the trash, and writes the response. A replay applies the caller's current access: when
 * what the stored response names is no longer visible to them, the answer is 404.
 */
export async function runIdempotentCreate(
  ctx: Context,
  principal: RestPrincipal,
  options: {
    body: unknown;
    /** Request parts that are not in the body (e.g. the SHA-256 of an uploaded file). */
    fingerprintExtra?: string;
    work: (trx: Knex.Transaction) => Promise<StoredResponse>;
    stillVisible?: (storedBody: unknown) => Promise<boolean>;
  },
): Promise<void> {
  const outcome = await runIdempotent(
    principal.tenant,
    {
      apiKeyId: callerIdOf(principal),
      key: idempotencyKeyOf(ctx),
      fingerprint: requestFingerprint({
        method: ctx.method,
        path: ctx.path,
        body: options.body,
        extra: options.fingerprintExtra,
      }),
    },
    options.work,
  );
  if (outcome.replayed) {
    if (options.stillVisible && !(await options.stillVisible(outcome.body)))
      throw new NotFoundError('What this request created is not visible to you any more.');
    ctx.set('Idempotent-Replayed', 'true');
  }
  for (const [k, v] of Object.entries(outcome.headers)) ctx.set(k, v);
  ctx.status = outcome.status;
  ctx.body = outcome.body;
}
