import { Type } from 'typebox';
import { Uuid } from '@service/report-model';
import type { AppContext } from '../app-context.ts';
import { resourceExample } from './resource-example.ts';
import type { ResourceDeclaration } from './resource-declaration.ts';
import type { ResourceRepository } from './resource-repository.ts';

/** What every route of a resource is built from. */
export interface ResourceRouteContext {
  app: AppContext;
  repository: ResourceRepository;
  decl: ResourceDeclaration;
  /** `/rest/v1/<name>`. */
  base: string;
  /** A full row as the API returns it, for the document. */
  example: Record<string, unknown> | undefined;
}

export const IdParams = Type.Object({ id: Uuid });

export function resourceRouteContext(app: AppContext, repository: ResourceRepository): ResourceRouteContext {
  const decl = repository.declaration;
  return { app, repository, decl, base: `/rest/v1/${decl.name}`, example: resourceExample(decl) };
}
