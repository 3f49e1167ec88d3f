import type { Context, Middleware } from 'koa';
import { peerIsTrustedProxy, type ClientIpSource } from './rate-limit/client-ip.ts';

/** What externalOrigin reads from a request (a Koa `Context` fits). */
export interface ExternalOriginSource extends ClientIpSource {
  /** Koa's view without proxy trust: `https` only when this socket is TLS. */
  protocol: string;
  /** The Host header as received. */
  host: string;
}

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The first value of a comma-separated forwarded header: the one the outermost proxy wrote. */
function firstValue(header: string): string {
  return header.split(',')[0]!.trim();
}

/**
 * The origin (`https://reports.example.com`) the client used to reach us: the scheme and host it
 * sees, which differ from ours behind a TLS-terminating reverse proxy. `X-Forwarded-Proto` and
 * `X-Forwarded-Host` are believed only when the socket peer is a trusted proxy (`TRUST_PROXY`), and
 * only when they are well-formed; otherwise the socket's own scheme and the Host header count.
 * The one answer used by the cross-site check of sign-in sessions, the cookie's `Secure` flag and
 * the absolute URLs the API writes (`Link`).
 */
export function externalOrigin(ctx: ExternalOriginSource, trustProxy: readonly string[]): string {
  let protocol = ctx.protocol;
  let host = ctx.host;
  if (peerIsTrustedProxy(ctx, trustProxy)) {
    const forwardedProto = firstValue(ctx.get('X-Forwarded-Proto')).toLowerCase();
    if (forwardedProto === 'http' || forwardedProto === 'https') protocol = forwardedProto;
    const forwardedHost = firstValue(ctx.get('X-Forwarded-Host'));
    if (HOST.test(forwardedHost)) host = forwardedHost;
  }
  if (!HOST.test(host)) host = 'localhost';
  // Why lower-case: browsers send Origin lower-cased; a host compares case-insensitively.
  const origin = `${protocol}://${host.toLowerCase()}`;
  return origin.replace(/^http:\/\/([^/]+):80$/, 'http://$1').replace(/^https:\/\/([^/]+):443$/, 'https://$1');
}

/** Works out the request's external origin once, early in the pipeline, for externalOriginOf. */
export function resolveExternalOrigin(trustProxy: readonly string[]): Middleware {
  return async (ctx, next) => {
    ctx.state.externalOrigin = externalOrigin(ctx, trustProxy);
    await next();
  };
}

/** The request's external origin as resolveExternalOrigin found it (or, without it, the socket's own view). */
export function externalOriginOf(ctx: Context): string {
  return (ctx.state.externalOrigin as string | undefined) ?? externalOrigin(ctx, []);
}

/**
 * Makes a `Location` of a successful answer (201 Created) the app wrote as a path (`/rest/v1/clients/{id}`) absolute with the request's
 * external origin, as `Link` is: clients follow it without knowing where they sent the request,
 * and behind a reverse proxy it names the host they used (forwarded headers from `TRUST_PROXY`
 * only). Also for answers replayed from the idempotency store, which keep the path.
 */
export function absoluteLocation(): Middleware {
  return async (ctx, next) => {
    await next();
    // Why String(): Koa answers undefined for a header that is not set.
    const location = String(ctx.response.get('Location') ?? '');
    // Why not redirects: the workspace pages' own redirects stay relative, as browsers expect nothing else.
    if (ctx.status >= 200 && ctx.status < 300 && location.startsWith('/') && !location.startsWith('//'))
      ctx.set('Location', `${externalOriginOf(ctx)}${location}`);
  };
}
