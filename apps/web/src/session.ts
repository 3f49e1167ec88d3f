/** Who is signed in: the service writes it on the page it serves (data attributes of <body>). */
export interface SessionUser {
  id: string;
  name: string;
  role: 'admin' | 'member' | 'viewer' | 'external';
}

export function sessionUser(): SessionUser {
  const data = document.body.dataset;
  const role = data.role;
  return {
    id: data.userId ?? '',
    name: data.userName ?? '',
    role: role === 'admin' || role === 'member' || role === 'viewer' || role === 'external' ? role : 'viewer',
  };
}

/** Viewers read only: the workspace shows them no controls that change anything. */
export function canEdit(user: SessionUser = sessionUser()): boolean {
  return user.role !== 'viewer';
}

export function isAdmin(user: SessionUser = sessionUser()): boolean {
  return user.role === 'admin';
}
