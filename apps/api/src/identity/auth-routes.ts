import { Type } from 'typebox';
import { MAX_PASSWORD_LENGTH, SESSION_ABSOLUTE_MS, SESSION_COOKIE, verifyPassword } from '@service/auth';
import { RateLimitedError, UnauthenticatedError, ValidationError } from '@service/http';
import { OrganizationRepository } from '@service/tenancy';
import type { AppContext } from '../app-context.ts';
import { presentUser, UserSchema } from './identity-schemas.ts';
import { setSessionCookie } from './session-guard.ts';
import { defineAppRoute } from '../rest/define-app-route.ts';

/** The largest sign-in body: an email and a password fit many times over. */
const LOGIN_BODY_MAX_BYTES = 16 * 1024;

const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
    organization: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$',
        description:
          'The slug of the organization to sign in to (as in its sign-in link `/?organization=<slug>`; ' +
          'letter case does not matter). Required in the hosted edition, where one e-mail address may have ' +
          'accounts in several organizations; self-hosted has one organization and needs none.',
        examples: ['acme'],
      }),
    ),
  },
  { additionalProperties: false },
);

const SignedIn = Type.Object({ user: UserSchema });

export function registerAuthRoutes(app: AppContext): void {
  const { registry, identity } = app;
  const organizations = new OrganizationRepository(app.deps.dbs.controlPlane);
  const hosted = app.deps.config.edition === 'hosted';
  const organizationOpen = async (organizationId: string) =>
    (await organizations.get(organizationId))?.state !== 'retained';
  registry.addTag('Sign-in', 'Workspace sign-in sessions (cookie). The REST API uses API keys instead.');

  defineAppRoute(app, {
    method: 'post',
    path: '/api/auth/login',
    operationId: 'login',
    summary: 'Sign in',
    description:
      'Checks email and password and sets an HttpOnly, SameSite=Strict session cookie ' +
      '(`Secure` when the client uses HTTPS, also behind a reverse proxy listed in ' +
      '`TRUST_PROXY`). Send `X-Requested-With`; a browser `Origin` must be this ' +
      'service. At most 5 attempts per account and 30 per address are checked in 15 ' +
      'minutes; successful ones are not counted. Further attempts answer 429 with ' +
      '`Retry-After`. In the hosted edition the account is the one of `email` in the ' +
      'organization named by `organization`, which is required there (one address may have ' +
      'accounts in several organizations); an unknown organization, an unknown email, an email ' +
      'of another organization and a wrong password answer the same 401 after the same work.',
    tags: ['Sign-in'],
    access: 'public',
    rateLimited: true,
    sameOrigin: true,
    body: {
      schema: LoginBody,
      maxBytes: LOGIN_BODY_MAX_BYTES,
      example: { email: 'admin@example.com', password: 'correct horse battery staple' },
    },
    responses: {
      200: {
        description: 'Signed in; the session cookie is set.',
        schema: SignedIn,
        headers: {
          'Set-Cookie': {
            description: '`service_session=...; Path=/; HttpOnly; SameSite=Strict` (and `Secure` over HTTPS).',
          },
        },
        example: {
          user: {
            id: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
            email: 'admin@example.com',
            name: 'Administrator',
            role: 'admin',
            active: true,
            createdAt: '2026-11-02T09:30:00.000Z',
            updatedAt: '2026-11-02T09:30:00.000Z',
            deactivatedAt: null,
          },
        },
      },
      401: {
        description:
          'Wrong email or password (`unauthenticated`); the same answer for an unknown email, an unknown ' +
          'organization and an email that has an account only in another organization.',
        schema: 'Error',
      },
      429: {
        description:
          'Too many failed sign-ins for this account or from this address (`rate_limited`); ' +
          'wait `Retry-After` seconds.',
        schema: 'Error',
      },
    },
    async handler(ctx, { body }) {
      const ip = ctx.state.clientIp ?? ctx.ip;
      const email = body.email.trim().toLowerCase();
      const slug = body.organization?.toLowerCase() ?? null;
      // Why required in hosted: an address may have accounts in several organizations, and letting
      // the password pick one would cost one password check per account, which tells how many there
      // are. The answer depends only on the request, never on which accounts exist.
      if (hosted && slug === null)
        throw new ValidationError('Name the organization to sign in to.', [
          { path: '/organization', message: "required in the hosted edition: the organization's slug" },
        ]);
      // Why the slug in the hosted key: each organization's account has its own budget of failed
      // attempts. Self-hosted keeps the address alone, so naming its one organization or not is
      // still one budget.
      const started = await identity.loginThrottle.begin(hosted ? `${slug}/${email}` : email, ip);
      if ('retryAfterSeconds' in started) throw new RateLimitedError(started.retryAfterSeconds);
      // One query and one password check whatever exists: unknown organization, unknown address and
      // an address of another organization answer as a wrong password does, after the same work.
      const user = await identity.users.findForSignIn(email, slug);
      const ok = await verifyPassword(body.password, user?.passwordHash ?? null);
      // Why the same answer for a closed organization: its users are kept, nobody signs in to it.
      if (!user || !ok || !user.active || !(await organizationOpen(user.organizationId)))
        throw new UnauthenticatedError('Email or password is wrong.');
      await started.attempt.succeeded();
      const session = await identity.sessions.create(user.id);
      setSessionCookie(ctx, session.token, SESSION_ABSOLUTE_MS);
      ctx.body = { user: presentUser(user) };
    },
  });

  defineAppRoute(app, {
    method: 'post',
    path: '/api/auth/logout',
    operationId: 'logout',
    summary: 'Sign out',
    description: 'Ends the session at once and clears the cookie. Without a session it simply clears the cookie.',
    tags: ['Sign-in'],
    access: 'public',
    sameOrigin: true,
    responses: { 204: { description: 'Signed out; the session no longer works.' } },
    async handler(ctx) {
      const token = ctx.cookies.get(SESSION_COOKIE);
      if (token) await identity.sessions.revoke(token);
      setSessionCookie(ctx, '', 0);
      ctx.status = 204;
    },
  });

  defineAppRoute(app, {
    method: 'get',
    path: '/api/auth/me',
    operationId: 'getSignedInUser',
    summary: 'The signed-in user',
    description: 'The user of the current session, with their current role.',
    tags: ['Sign-in'],
    access: 'session',
    responses: { 200: { description: 'The signed-in user.', schema: SignedIn } },
    async handler(ctx, { session }) {
      const user = await identity.users.get(session.organizationId, session.userId);
      if (!user) throw new UnauthenticatedError('Sign in first.');
      ctx.body = { user: presentUser(user) };
    },
  });
}
