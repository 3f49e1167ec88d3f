import { describe, expect, it } from 'vitest';
import {
  ACTIONS,
  authorize,
  KEY_SCOPES,
  ROLES,
  type Action,
  type Caller,
  type DenialCode,
  type Grant,
  type Role,
  type Target,
} from './policy.ts';

const C1 = '11111111-1111-4111-8111-111111111111';
const C2 = '22222222-2222-4222-8222-222222222222';

/**
 * What each role may do by itself, written out by hand (the grant column only matters for
 * externals). This table is the specification; the test checks every combination against it.
 */
const ROLE_TABLE: Record<Role, Record<'none' | Grant, readonly Action[]>> = {
  admin: {
    none: ACTIONS,
    view: ACTIONS,
    edit: ACTIONS,
  },
  member: {
    none: ['read', 'export', 'create', 'update', 'delete', 'upload', 'import', 'share'],
    view: ['read', 'export', 'create', 'update', 'delete', 'upload', 'import', 'share'],
    edit: ['read', 'export', 'create', 'update', 'delete', 'upload', 'import', 'share'],
  },
  viewer: { none: ['read', 'export'], view: ['read', 'export'], edit: ['read', 'export'] },
  external: {
    none: [], // invisible: not_found
    view: ['read', 'export'],
    edit: ['read', 'export', 'create', 'update', 'delete', 'upload', 'import'],
  },
};
const WRITES_NEEDING_ALLOW_LIST: readonly Action[] = ['update', 'delete', 'upload', 'import', 'share'];
const READ_ONLY_KEY_MAY: readonly Action[] = ['read', 'export'];

/** `allow` is the key's allow-list; null stands for a signed-in session, which has no key and no list. */
function expected(
  role: Role,
  scope: Caller['scope'],
  grant: Grant | null,
  allow: string[] | null,
  action: Action,
  target: Target,
): DenialCode | 'allowed' {
  if (role === 'external' && (grant === null || target.workspaceWide)) return 'not_found';
  if (scope === 'read-only' && !READ_ONLY_KEY_MAY.includes(action)) return 'read_only_key';
  if (!ROLE_TABLE[role][grant ?? 'none'].includes(action)) return 'forbidden';
  // An empty list allows no client: a new key edits nothing until a client is on its list.
  if (
    WRITES_NEEDING_ALLOW_LIST.includes(action) &&
    allow !== null &&
    target.clientId !== null &&
    !allow.includes(target.clientId)
  )
    return 'client_not_allowed';
  return 'allowed';
}

const grants: (Grant | null)[] = [null, 'view', 'edit'];
const allowLists: string[][] = [[], [C1], [C2], [C1, C2]];
/** Sessions (no key, no list), then every key scope with every allow-list. */
const callers: Array<{ scope: Caller['scope']; allow: string[] | null }> = [
  { scope: null, allow: null },
  ...KEY_SCOPES.flatMap((scope) => allowLists.map((allow) => ({ scope, allow }))),
];
const callerOf = (role: Role, scope: Caller['scope'], allow: string[] | null): Caller =>
  scope === null ? { role, scope } : { role, scope, allowedClientIds: allow ?? [] };
const targets: Target[] = [
  { clientId: C1, grant: null },
  { clientId: null, grant: null },
  { clientId: null, grant: null, workspaceWide: true },
];

const cases: Array<[string, Caller, Action, Target, DenialCode | 'allowed']> = [];
for (const role of ROLES)
  for (const { scope, allow } of callers)
    for (const grant of grants)
      for (const action of ACTIONS)
        for (const base of targets) {
          const target = { ...base, grant };
          const label =
            `${role} ${scope ?? 'session'} grant=${grant} ` +
            `allow=${allow === null ? 'none (session)' : JSON.stringify(allow.map((c) => (c === C1 ? 'c1' : 'c2')))} ` +
            `${action} on ` +
            `${target.workspaceWide ? 'workspace-wide' : target.clientId ? 'c1 row' : 'clientless row'}`;
          cases.push([
            label,
            callerOf(role, scope, allow),
            action,
            target,
            expected(role, scope, grant, allow, action, target),
          ]);
        }

describe('authorize: every role x scope x grant x allow-list x action x target', () => {
  it(`covers ${cases.length} combinations`, () => {
    expect(cases.length).toBe(
      ROLES.length * (1 + KEY_SCOPES.length * allowLists.length) * grants.length * ACTIONS.length * targets.length,
    );
    const mismatches = cases.filter(([, caller, action, target, want]) => {
      const d = authorize(caller, action, target);
      return (d.allowed ? 'allowed' : d.code) !== want;
    });
    expect(mismatches.map(([label, , , , want]) => `${label}: want ${want}`)).toEqual([]);
  });

  it.each([
    [
      'a new key (empty allow-list) may read, export and create under any client',
      { role: 'member', scope: 'read-write', allowedClientIds: [] },
      'create',
      { clientId: C1, grant: null },
      'allowed',
    ],
    [
      'a new key (empty allow-list) cannot edit under any client',
      { role: 'admin', scope: 'read-write', allowedClientIds: [] },
      'update',
      { clientId: C1, grant: null },
      'client_not_allowed',
    ],
    [
      'a new key (empty allow-list) cannot delete under any client',
      { role: 'admin', scope: 'read-write', allowedClientIds: [] },
      'delete',
      { clientId: C1, grant: null },
      'client_not_allowed',
    ],
    [
      'a key edits a client on its list',
      { role: 'member', scope: 'read-write', allowedClientIds: [C1] },
      'update',
      { clientId: C1, grant: null },
      'allowed',
    ],
    [
      'rows outside any client (libraries) are not limited by the list',
      { role: 'member', scope: 'read-write', allowedClientIds: [] },
      'update',
      { clientId: null, grant: null },
      'allowed',
    ],
    [
      'a signed-in session has no allow-list',
      { role: 'member', scope: null },
      'update',
      { clientId: C1, grant: null },
      'allowed',
    ],
    [
      'a read-only key cannot write even as admin',
      { role: 'admin', scope: 'read-only', allowedClientIds: [C1] },
      'update',
      { clientId: C1, grant: null },
      'read_only_key',
    ],
    [
      'reads and exports ignore the allow-list',
      { role: 'member', scope: 'read-write', allowedClientIds: [C2] },
      'export',
      { clientId: C1, grant: null },
      'allowed',
    ],
    [
      'plain creates ignore the allow-list',
      { role: 'member', scope: 'read-write', allowedClientIds: [] },
      'create',
      { clientId: C1, grant: null },
      'allowed',
    ],
    [
      'an import into an existing report needs the client',
      { role: 'member', scope: 'read-write', allowedClientIds: [C2] },
      'import',
      { clientId: C1, grant: null },
      'client_not_allowed',
    ],
    [
      'evidence uploads need the client',
      { role: 'admin', scope: 'read-write', allowedClientIds: [] },
      'upload',
      { clientId: C1, grant: null },
      'client_not_allowed',
    ],
    [
      'an external without a share sees nothing, even with a read-only key',
      { role: 'external', scope: 'read-only', allowedClientIds: [C1] },
      'update',
      { clientId: C1, grant: null },
      'not_found',
    ],
    [
      'an external with a view share cannot edit',
      { role: 'external', scope: 'read-write', allowedClientIds: [C1] },
      'update',
      { clientId: C1, grant: 'view' },
      'forbidden',
    ],
    [
      'an external never sees libraries',
      { role: 'external', scope: 'read-write', allowedClientIds: [C1] },
      'read',
      { clientId: null, grant: 'edit', workspaceWide: true },
      'not_found',
    ],
    [
      'members cannot restore from the trash',
      { role: 'member', scope: 'read-write', allowedClientIds: [C1] },
      'restore',
      { clientId: C1, grant: null },
      'forbidden',
    ],
    ['viewers cannot create', { role: 'viewer', scope: null }, 'create', { clientId: C1, grant: null }, 'forbidden'],
  ] as Array<[string, Caller, Action, Target, DenialCode | 'allowed']>)(
    '%s',
    (_label, caller, action, target, want) => {
      const d = authorize(caller, action, target);
      expect(d.allowed ? 'allowed' : d.code).toBe(want);
    },
  );
});
