import type { AppContext } from '../app-context.ts';
import { responseSchema } from './field.ts';
import { defineGetRoute, defineListRoute } from './resource-read-routes.ts';
import type { ResourceRepository } from './resource-repository.ts';
import { resourceRouteContext } from './resource-route-context.ts';
import { defineCreateRoute, defineDeleteRoute, defineUpdateRoute } from './resource-write-routes.ts';

export interface Resource {
  repository: ResourceRepository;
}

/**
 * The one mechanism behind every REST resource: list (filters, search, pagination headers),
 * get, create (idempotent with `Idempotency-Key`), update (with `expectedUpdatedAt` where
 * declared) and delete (trash or permanent). Handlers are thin: the repository applies
 * visibility and the access policy; each operation is documented from the same schemas
 * (`resource-read-routes.ts`, `resource-write-routes.ts`; examples from `resource-example.ts`).
 */
export function defineResource(app: AppContext, repository: ResourceRepository): Resource {
  const decl = repository.declaration;
  const ops = { list: true, get: true, create: true, update: true, delete: true, ...decl.operations };
  app.registry.addSchema(decl.schemaName, responseSchema(decl.fields, decl.extraResponse));
  app.registry.addTag(decl.tag, decl.description);
  const context = resourceRouteContext(app, repository);
  if (ops.list) defineListRoute(context);
  if (ops.get) defineGetRoute(context);
  if (ops.create && decl.create) defineCreateRoute(context, decl.create);
  if (ops.update) defineUpdateRoute(context);
  if (ops.delete) defineDeleteRoute(context);
  return { repository };
}
