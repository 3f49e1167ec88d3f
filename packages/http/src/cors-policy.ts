import cors from '@koa/cors';
import type { Middleware } from 'koa';

/** Headers a browser script may read from a cross-origin answer: everything the API guide promises. */
export const CORS_EXPOSED_HEADERS = [
  'Link',
  'Location',
  'ETag',
  'Retry-After',
  'Idempotent-Replayed',
  'X-Request-Id',
  'X-Total-Count',
  'X-Page',
  'X-Per-Page',
  'X-Total-Pages',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Content-Disposition',
  'Content-Range',
  'Accept-Ranges',
];

/** Request headers a cross-origin script may send to the REST API. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-None-Match',
  'X-Request-Id',
];

/**
 * Cross-origin access to the paths under `prefixes` for the origins in `allowedOrigins`
 * (`CORS_ALLOWED_ORIGINS`; `*` for any). Without origins, nothing: no CORS header is ever sent.
 * Credentials (cookies) are never allowed cross-origin: the REST API authenticates with API keys.
 * A preflight from an allowed origin is answered 204 here, before authentication.
 */
export function corsPolicy(options: {
  allowedOrigins: readonly string[];
  prefixes: readonly string[];
}): Middleware | null {
  if (options.allowedOrigins.length === 0) return null;
  const any = options.allowedOrigins.includes('*');
  const allowed = new Set(options.allowedOrigins.map((o) => o.toLowerCase()));
  const handler = cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      if (!origin) return '';
      if (any) return '*';
      return allowed.has(origin.toLowerCase()) ? origin : '';
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: CORS_ALLOWED_HEADERS,
    exposeHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    credentials: false,
  });
  return async (ctx, next) => {
    if (!options.prefixes.some((p) => ctx.path === p || ctx.path.startsWith(`${p}/`))) return next();
    return handler(ctx, next);
  };
}
