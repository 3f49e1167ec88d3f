import type { Context, Middleware } from 'koa';
import { SESSION_COOKIE, type SessionPrincipal, type SessionRepository } from '@service/auth';
import { externalOriginOf, ForbiddenError, UnauthenticatedError } from '@service/http';

/** Resolves (once per request) the signed-in session from the cookie. */
export function createSessionResolver(sessions: SessionRepository) {
  return async function sessionOf(ctx: Context): Promise<SessionPrincipal | null> {
    if (ctx.state.session !== undefined) return ctx.state.session as SessionPrincipal | null;
    const token = ctx.cookies.get(SESSION_COOKIE);
    const session = token ? await sessions.resolve(token) : null;
    ctx.state.session = session;
    return session;
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request protection for cookie-authenticated calls: a state-changing request must
 * carry `X-Requested-With` (a browser cannot add it cross-site without a CORS preflight we never
 * grant) and, when the browser sends `Origin`, it must be this service's own origin as the client
 * sees it (behind a TLS-terminating proxy in TRUST_PROXY: the forwarded scheme and host).
 */
export function sameOriginGuard(): Middleware {
  return async (ctx, next) => {
    if (!SAFE_METHODS.has(ctx.method)) {
      const origin = ctx.get('Origin');
      if (origin && origin.toLowerCase() !== externalOriginOf(ctx)) {
        throw new ForbiddenError('cross_site_request', 'Cross-site requests are not accepted.');
      }
      if (!ctx.get('X-Requested-With')) {
        throw new ForbiddenError(
          'cross_site_request',
          'Send the header X-Requested-With with state-changing requests.',
        );
      }
    }
    await next();
  };
}

/** A signed-in session is required; `admin` additionally requires the administrator role. */
export function requireSession(
  sessionOf: (ctx: Context) => Promise<SessionPrincipal | null>,
  role?: 'admin',
): Middleware {
  return async (ctx, next) => {
    const session = await sessionOf(ctx);
    if (!session) throw new UnauthenticatedError('Sign in first.');
    if (role === 'admin' && session.role !== 'admin')
      throw new ForbiddenError('forbidden', 'Only administrators can do this.');
    await next();
  };
}

/**
 * Sets or clears the session cookie: HttpOnly, SameSite=Strict, and Secure whenever the client
 * reaches us over HTTPS, also through a TLS-terminating reverse proxy listed in TRUST_PROXY.
 */
export function setSessionCookie(ctx: Context, value: string, maxAgeMs: number): void {
  const secure = externalOriginOf(ctx).startsWith('https:');
  // Why: the cookies library refuses a Secure cookie on a plain-HTTP socket unless told the
  // connection is secure; behind our own TLS proxy it is.
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/',
    maxAge: maxAgeMs,
    overwrite: true,
  });
}
