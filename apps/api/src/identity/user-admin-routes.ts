import { Type } from 'typebox';
import {
  EmailTakenError,
  generatePassword,
  LastAdministratorError,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
} from '@service/auth';
import { ConflictError, ForbiddenError, NotFoundError } from '@service/http';
import type { AppContext } from '../app-context.ts';
import { IdParams, presentUser, RoleSchema, UserSchema } from './identity-schemas.ts';
import { defineAppRoute } from '../rest/define-app-route.ts';

const CreateUserBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    role: RoleSchema,
    password: Type.Optional(
      Type.String({
        minLength: MIN_PASSWORD_LENGTH,
        maxLength: MAX_PASSWORD_LENGTH,
        description: 'Omit to generate one; it is returned once.',
      }),
    ),
  },
  { additionalProperties: false },
);
const UpdateUserBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), role: Type.Optional(RoleSchema) },
  { additionalProperties: false },
);

export function registerUserAdminRoutes(app: AppContext): void {
  const { registry, identity } = app;
  registry.addTag('Users (administration)', 'Create, change and deactivate users; administrators only.');
  registry.addSchema('User', UserSchema);

  /**
   * An organization must keep one active administrator, or nobody could manage it. The
   * repository checks it in the same transaction as the change, with the administrators locked.
   */
  async function keepingOneAdministrator<T>(change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } catch (err) {
      if (err instanceof LastAdministratorError) throw new ForbiddenError('forbidden', err.message);
      throw err;
    }
  }

  const EXAMPLE_USER = {
    id: '7a1d3c5e-9b2f-4d6a-8c0e-1f3b5d7a9c2e',
    email: 'tess@example.com',
    name: 'Tess Tester',
    role: 'member',
    active: true,
    createdAt: '2026-11-02T09:30:00.000Z',
    updatedAt: '2026-11-02T09:30:00.000Z',
    deactivatedAt: null,
  };

  defineAppRoute(app, {
    method: 'get',
    path: '/api/admin/users',
    operationId: 'adminListUsers',
    summary: 'List users',
    description: 'Every user of the organization, active or not, oldest first.',
    tags: ['Users (administration)'],
    access: 'admin',
    responses: {
      200: { description: 'Every user of the organization.', schema: { arrayOf: 'User' }, example: [EXAMPLE_USER] },
    },
    async handler(ctx, { session: s }) {
      ctx.body = (await identity.users.list(s.organizationId)).map(presentUser);
    },
  });

  defineAppRoute(app, {
    method: 'post',
    path: '/api/admin/users',
    operationId: 'adminCreateUser',
    summary: 'Create a user',
    description: 'Creates a user of the organization. Without `password` one is generated and returned once.',
    tags: ['Users (administration)'],
    access: 'admin',
    body: {
      schema: CreateUserBody,
      maxBytes: 16 * 1024,
      example: { email: 'tester@example.com', name: 'Tess Tester', role: 'member' },
    },
    responses: {
      201: {
        description: 'Created. `password` is present only when it was generated.',
        schema: Type.Object({ user: UserSchema, password: Type.Optional(Type.String()) }),
        example: { user: EXAMPLE_USER, password: 'generated-password-shown-once' },
      },
      409: { description: 'The email is taken (`email_taken`).', schema: 'Error' },
    },
    async handler(ctx, { body, session: s }) {
      const generated = body.password ? null : generatePassword();
      try {
        const user = await identity.users.create({
          organizationId: s.organizationId,
          email: body.email.toLowerCase(),
          name: body.name,
          role: body.role,
          password: body.password ?? generated,
        });
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Location', `/api/admin/users/${user.id}`);
        ctx.status = 201;
        ctx.body = generated ? { user: presentUser(user), password: generated } : { user: presentUser(user) };
      } catch (err) {
        if (err instanceof EmailTakenError) throw new ConflictError(err.message, 'email_taken');
        throw err;
      }
    },
  });

  defineAppRoute(app, {
    method: 'patch',
    path: '/api/admin/users/{id}',
    operationId: 'adminUpdateUser',
    summary: "Change a user's name or role",
    description: "A role change takes effect on the user's next request, API keys included.",
    tags: ['Users (administration)'],
    access: 'admin',
    params: IdParams,
    body: { schema: UpdateUserBody, maxBytes: 16 * 1024, example: { role: 'viewer' } },
    responses: {
      200: { description: 'Updated.', schema: 'User', example: { ...EXAMPLE_USER, role: 'viewer' } },
      403: {
        description:
          'Not an administrator, or this would leave the organization without an active administrator (`forbidden`).',
        schema: 'Error',
      },
    },
    async handler(ctx, { params, body, session: s }) {
      const user = await keepingOneAdministrator(() => identity.users.update(s.organizationId, params.id, body));
      if (!user) throw new NotFoundError();
      ctx.body = presentUser(user);
    },
  });

  defineAppRoute(app, {
    method: 'post',
    path: '/api/admin/users/{id}/deactivate',
    operationId: 'adminDeactivateUser',
    summary: 'Deactivate a user',
    description: "Revokes all of the user's API keys and sign-in sessions at once.",
    tags: ['Users (administration)'],
    access: 'admin',
    params: IdParams,
    responses: {
      200: {
        description: 'Deactivated.',
        schema: 'User',
        example: { ...EXAMPLE_USER, active: false, deactivatedAt: '2026-11-03T10:00:00.000Z' },
      },
      403: {
        description: 'Not an administrator, or this is the last active administrator (`forbidden`).',
        schema: 'Error',
      },
    },
    async handler(ctx, { params, session: s }) {
      const user = await keepingOneAdministrator(() =>
        identity.users.deactivate(s.organizationId, params.id, s.userId),
      );
      if (!user) throw new NotFoundError();
      ctx.body = presentUser(user);
    },
  });
}
