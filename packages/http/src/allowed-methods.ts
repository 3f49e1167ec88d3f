import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HttpError, NotFoundError } from './http-error.ts';

/** The methods routed on `path`, in a stable order, with OPTIONS (always answered) last. */
export function allowedMethodsOf(router: Router, path: string): string[] {
  const matched = router.match(path, 'OPTIONS').path;
  const methods = new Set<string>();
  for (const layer of matched) for (const m of layer.methods) methods.add(m);
  if (methods.size === 0) return [];
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  return [
    ...order.filter((m) => methods.has(m)),
    ...[...methods].filter((m) => !order.includes(m) && m !== 'OPTIONS').sort(),
    'OPTIONS',
  ];
}

/**
 * `OPTIONS` on a known path answers 204 with `Allow`, before authentication (it reveals only which
 * methods exist, which the published reference says anyway). A CORS preflight from an allowed
 * origin is answered earlier, by the CORS policy.
 */
export function answerOptions(router: Router): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'OPTIONS') return next();
    const allow = allowedMethodsOf(router, ctx.path);
    if (allow.length === 0) return next();
    ctx.set('Allow', allow.join(', '));
    ctx.status = 204;
  };
}

/**
 * Last in the pipeline, for requests no route answered: a known path asked with a method it does
 * not have answers 405 `method_not_allowed` with `Allow`; anything else 404 `not_found`. Both as
 * the JSON error body.
 */
export function answerUnrouted(router: Router): Middleware {
  return async (ctx) => {
    if (ctx.body !== undefined && ctx.body !== null) return;
    const allow = allowedMethodsOf(router, ctx.path);
    if (allow.length > 0 && !allow.includes(ctx.method)) {
      throw new HttpError(
        405,
        'method_not_allowed',
        `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow.join(', ')}.`,
        { headers: { Allow: allow.join(', ') } },
      );
    }
    throw new NotFoundError(`No route for ${ctx.method} ${ctx.path}.`);
  };
}
