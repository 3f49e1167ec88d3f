/**
 * The access policy: one pure function that decides whether a caller may do an action on a
 * target. Visibility (grants) is also applied as query conditions inside repositories; this
 * function decides what a caller may *do* with a row it can see, and answers `not_found` for
 * rows it may not see, so the HTTP answer is the same as for a missing id.
 */

export const ROLES = ['admin', 'member', 'viewer', 'external'] as const;
export type Role = (typeof ROLES)[number];

export const KEY_SCOPES = ['read-only', 'read-write'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export type Grant = 'view' | 'edit';

export const ACTIONS = [
  'read',
  'export',
  'create',
  'update',
  'delete',
  'upload',
  'import',
  'share',
  'restore',
  'administer',
] as const;
/**
 * - `read`, `export`: look, download.
 * - `create`: a plain create (not restricted by the client allow-list).
 * - `update`, `delete`, `upload` (evidence), `import` (into an existing report), `share`: change existing rows.
 * - `restore`, `administer`: administrators only (trash, users, every key).
 */
export type Action = (typeof ACTIONS)[number];

const READS: ReadonlySet<Action> = new Set(['read', 'export']);
/** Actions on an existing row of a client: need that client on the key's allow-list. */
const ALLOW_LISTED: ReadonlySet<Action> = new Set(['update', 'delete', 'upload', 'import', 'share']);

/**
 * Who is asking. An API key carries its scope and its client allow-list: edits, deletes, uploads,
 * imports and shares under a client need that client on the list, and an empty list (a new key's
 * default) allows none of them; there is no "every client". A signed-in session (`scope: null`)
 * has no key, so no allow-list: it acts with its role alone.
 */
export type Caller = { role: Role; scope: KeyScope; allowedClientIds: readonly string[] } | { role: Role; scope: null };

export interface Target {
  /** The client owning the affected row; null for rows outside any client (libraries, users). */
  clientId: string | null;
  /** For external callers: the share covering the row, or null when none does. */
  grant: Grant | null;
  /** Workspace-wide things (libraries, trash, users) that external collaborators never see. */
  workspaceWide?: boolean;
}

export type DenialCode = 'not_found' | 'read_only_key' | 'forbidden' | 'client_not_allowed';
export type Decision = { allowed: true } | { allowed: false; code: DenialCode };

const ALLOWED: Decision = { allowed: true };
const deny = (code: DenialCode): Decision => ({ allowed: false, code });

function roleAllows(caller: Caller, action: Action, target: Target): boolean {
  switch (caller.role) {
    case 'admin':
      return true;
    case 'member':
      return action !== 'restore' && action !== 'administer';
    case 'viewer':
      return READS.has(action);
    case 'external':
      if (READS.has(action)) return true;
      if (action === 'share' || action === 'restore' || action === 'administer') return false;
      return target.grant === 'edit';
  }
}

/** Checks in order: visibility, key scope, role (with grants), client allow-list. */
export function authorize(caller: Caller, action: Action, target: Target): Decision {
  if (caller.role === 'external' && (target.workspaceWide || target.grant === null)) return deny('not_found');
  if (caller.scope === 'read-only' && !READS.has(action)) return deny('read_only_key');
  if (!roleAllows(caller, action, target)) return deny('forbidden');
  if (
    ALLOW_LISTED.has(action) &&
    caller.scope !== null &&
    target.clientId !== null &&
    !caller.allowedClientIds.includes(target.clientId)
  ) {
    return deny('client_not_allowed');
  }
  return ALLOWED;
}
