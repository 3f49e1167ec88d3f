import { Type } from 'typebox';
import { MAX_PASSWORD_LENGTH, SESSION_ABSOLUTE_MS, SESSION_COOKIE, verifyPassword } from '@service/auth';
import { defineRoute, HttpError, RateLimitedError, UnauthenticatedError } from '@service/http';
import type { AppContext } from '../app-context.ts';
import { presentUser, UserSchema } from './identity-schemas.ts';
import { requireSession, sameOriginGuard } from './session-guard.ts';

const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { additionalProperties: false },
);

export function registerAuthRoutes(app: AppContext): void {
  const { router, registry, routeDefaults, identity } = app;
  registry.addTag('Sign-in', 'Workspace sign-in sessions (cookie). The REST API uses API keys instead.');

  defineRoute(router, registry, routeDefaults, {
    method: 'post',
    path: '/api/auth/login',
    operationId: 'login',
    summary: 'Sign in',
    description:
      'Checks email and password and sets an HttpOnly, SameSite=Strict session cookie. Send `X-Requested-With`. Repeated failures are slowed down per account and per address (429 with `Retry-After`).',
    tags: ['Sign-in'],
    security: 'none',
    before: [sameOriginGuard()],
    body: { schema: LoginBody, maxBytes: 16 * 1024, example: { email: 'admin@example.com', password: 'correct horse battery staple' } },
    responses: { 200: { description: 'Signed in.', schema: Type.Object({ user: UserSchema }) }, 401: { description: 'Wrong email or password (`unauthenticated`).', schema: 'Error' } },
    async handler(ctx, { body }) {
      const ip = ctx.state.clientIp ?? ctx.ip;
      const email = body.email.trim().toLowerCase();
      const wait = await identity.loginThrottle.retryAfter(email, ip);
      if (wait !== null) throw new RateLimitedError(wait);
      const user = await identity.users.findByEmailWithPassword(email);
      const ok = await verifyPassword(body.password, user?.passwordHash ?? null);
      if (!user || !ok || !user.active) {
        await identity.loginThrottle.recordFailure(email, ip);
        throw new UnauthenticatedError('Email or password is wrong.');
      }
      const session = await identity.sessions.create(user.id);
      ctx.cookies.set(SESSION_COOKIE, session.token, {
        httpOnly: true,
        sameSite: 'strict',
        secure: ctx.secure,
        path: '/',
        maxAge: SESSION_ABSOLUTE_MS,
        overwrite: true,
      });
      ctx.body = { user: presentUser(user) };
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'post',
    path: '/api/auth/logout',
    operationId: 'logout',
    summary: 'Sign out',
    tags: ['Sign-in'],
    security: 'session',
    before: [sameOriginGuard()],
    responses: { 204: { description: 'Signed out; the session no longer works.' } },
    async handler(ctx) {
      const token = ctx.cookies.get(SESSION_COOKIE);
      if (token) await identity.sessions.revoke(token);
      ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/', maxAge: 0, overwrite: true });
      ctx.status = 204;
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'get',
    path: '/api/auth/me',
    operationId: 'getSignedInUser',
    summary: 'The signed-in user',
    tags: ['Sign-in'],
    security: 'session',
    before: [requireSession(app.sessionOf)],
    responses: { 200: { description: 'The signed-in user.', schema: Type.Object({ user: UserSchema }) } },
    async handler(ctx) {
      const session = (await app.sessionOf(ctx))!;
      const user = await identity.users.get(session.organizationId, session.userId);
      if (!user) throw new HttpError(401, 'unauthenticated', 'Sign in first.');
      ctx.body = { user: presentUser(user) };
    },
  });
}
