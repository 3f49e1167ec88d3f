import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { JsonLogger } from './json-logger.ts';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * First in the pipeline: gives every request an id (the client's `X-Request-Id` when it is
 * sane, else a new one), echoes it, and writes one access log line when the response is done.
 * Logs method, path without query string, status, duration, id: never headers, keys or bodies.
 */
export function requestLog(logger: JsonLogger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    const requestId = CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info('request', {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        durationMs: Math.round(durationMs * 100) / 100,
        requestId,
        ip: ctx.state.clientIp ?? ctx.ip,
      });
    }
  };
}
