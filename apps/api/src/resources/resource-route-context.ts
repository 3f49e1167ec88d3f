import { Type } from 'typebox';
import { Uuid } from '@service/report-model';
import type { AppContext } from '../app-context.ts';
import { exampleRow, pickFields } from './resource-example.ts';
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
  example: Record<string, unknown>;
}

export const IdParams = Type.Object({ id: Uuid });

export function resourceRouteContext(app: AppContext, repository: ResourceRepository): ResourceRouteContext {
  const decl = repository.declaration;
  // A full row as the API returns it: the create example's fields, or the declared response values, and the rest generated.
  const example = exampleRow(decl, decl.create ? pickFields(decl, decl.create.example) : (decl.responseExample ?? {}));
  return { app, repository, decl, base: `/rest/v1/${decl.name}`, example };
}
