import { authorize, type Action, type Grant } from '@service/auth';
import { ForbiddenError, NotFoundError } from '@service/http';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';

export interface RowAccess {
  clientId: string | null;
  grant: Grant | null;
  workspaceWide?: boolean;
}

/** Workspace-wide things (libraries, trash): outside any client, never visible to external collaborators. */
export const WORKSPACE_WIDE: RowAccess = { clientId: null, grant: null, workspaceWide: true };

export function grantFromLevel(level: unknown): Grant | null {
  const n = Number(level);
  return n >= 2 ? 'edit' : n >= 1 ? 'view' : null;
}

/** Applies the policy and turns a refusal into the HTTP error callers see. */
export function assertAllowed(principal: RestPrincipal, action: Action, access: RowAccess, what = 'resource'): void {
  const decision = authorize(
    principal.scope === null
      ? { role: principal.role, scope: null }
      : { role: principal.role, scope: principal.scope, allowedClientIds: principal.allowedClientIds },
    action,
    access,
  );
  if (decision.allowed) return;
  switch (decision.code) {
    case 'not_found':
      throw new NotFoundError(`The ${what} was not found.`);
    case 'read_only_key':
      throw new ForbiddenError(
        'read_only_key',
        'This API key is read-only; it cannot create, change or delete anything.',
      );
    case 'client_not_allowed':
      throw new ForbiddenError(
        'client_not_allowed',
        `This API key's client allow-list does not include the client this ${what} belongs to.`,
      );
    default:
      throw new ForbiddenError('forbidden', `Your role does not allow this on the ${what}.`);
  }
}
