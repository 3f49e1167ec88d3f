import { Type } from 'typebox';
import { EmailTakenError, generatePassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '@service/auth';
import { ConflictError, defineRoute, ForbiddenError, NotFoundError } from '@service/http';
import type { AppContext } from '../app-context.ts';
import { IdParams, presentUser, RoleSchema, UserSchema } from './identity-schemas.ts';
import { requireSession, sameOriginGuard } from './session-guard.ts';

const CreateUserBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    role: RoleSchema,
    password: Type.Optional(Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH, description: 'Omit to generate one; it is returned once.' })),
  },
  { additionalProperties: false },
);
const UpdateUserBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), role: Type.Optional(RoleSchema) }, { additionalProperties: false });

export function registerUserAdminRoutes(app: AppContext): void {
  const { router, registry, routeDefaults, identity } = app;
  const admin = [sameOriginGuard(), requireSession(app.sessionOf, 'admin')];
  registry.addTag('Users (administration)', 'Create, change and deactivate users; administrators only.');
  registry.addSchema('User', UserSchema);

  /** An organization must keep one active administrator, or nobody could manage it. */
  async function assertNotLastAdmin(organizationId: string, userId: string): Promise<void> {
    const target = await identity.users.get(organizationId, userId);
    if (target?.role === 'admin' && target.active && (await identity.users.countActiveAdmins(organizationId)) <= 1) {
      throw new ForbiddenError('forbidden', 'This is the last active administrator; make another user an administrator first.');
    }
  }

  defineRoute(router, registry, routeDefaults, {
    method: 'get',
    path: '/api/admin/users',
    operationId: 'adminListUsers',
    summary: 'List users',
    tags: ['Users (administration)'],
    security: 'session',
    before: admin,
    responses: { 200: { description: 'Every user of the organization.', schema: { arrayOf: 'User' } } },
    async handler(ctx) {
      const s = (await app.sessionOf(ctx))!;
      ctx.body = (await identity.users.list(s.organizationId)).map(presentUser);
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'post',
    path: '/api/admin/users',
    operationId: 'adminCreateUser',
    summary: 'Create a user',
    tags: ['Users (administration)'],
    security: 'session',
    before: admin,
    body: { schema: CreateUserBody, maxBytes: 16 * 1024, example: { email: 'tester@example.com', name: 'Tess Tester', role: 'member' } },
    responses: {
      201: { description: 'Created. `password` is present only when it was generated.', schema: Type.Object({ user: UserSchema, password: Type.Optional(Type.String()) }) },
      409: { description: 'The email is taken (`email_taken`).', schema: 'Error' },
    },
    async handler(ctx, { body }) {
      const s = (await app.sessionOf(ctx))!;
      const generated = body.password ? null : generatePassword();
      try {
        const user = await identity.users.create({ organizationId: s.organizationId, email: body.email.toLowerCase(), name: body.name, role: body.role, password: body.password ?? generated });
        ctx.set('Cache-Control', 'no-store');
        ctx.status = 201;
        ctx.body = generated ? { user: presentUser(user), password: generated } : { user: presentUser(user) };
      } catch (err) {
        if (err instanceof EmailTakenError) throw new ConflictError(err.message, 'email_taken');
        throw err;
      }
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'patch',
    path: '/api/admin/users/{id}',
    operationId: 'adminUpdateUser',
    summary: "Change a user's name or role",
    description: "A role change takes effect on the user's next request, API keys included.",
    tags: ['Users (administration)'],
    security: 'session',
    before: admin,
    params: IdParams,
    body: { schema: UpdateUserBody, maxBytes: 16 * 1024 },
    responses: { 200: { description: 'Updated.', schema: 'User' } },
    async handler(ctx, { params, body }) {
      const s = (await app.sessionOf(ctx))!;
      if (body.role && body.role !== 'admin') await assertNotLastAdmin(s.organizationId, params.id);
      const user = await identity.users.update(s.organizationId, params.id, body);
      if (!user) throw new NotFoundError();
      ctx.body = presentUser(user);
    },
  });

  defineRoute(router, registry, routeDefaults, {
    method: 'post',
    path: '/api/admin/users/{id}/deactivate',
    operationId: 'adminDeactivateUser',
    summary: 'Deactivate a user',
    description: "Revokes all of the user's API keys and sign-in sessions at once.",
    tags: ['Users (administration)'],
    security: 'session',
    before: admin,
    params: IdParams,
    responses: { 200: { description: 'Deactivated.', schema: 'User' } },
    async handler(ctx, { params }) {
      const s = (await app.sessionOf(ctx))!;
      await assertNotLastAdmin(s.organizationId, params.id);
      const user = await identity.users.deactivate(s.organizationId, params.id, s.userId);
      if (!user) throw new NotFoundError();
      ctx.body = presentUser(user);
    },
  });
}
