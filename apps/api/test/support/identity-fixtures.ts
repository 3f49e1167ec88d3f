import { ApiKeyRepository, UserRepository, type KeyScope, type Role, type User } from '@service/auth';
import { httpClient, type HttpClient } from './http-client.ts';
import type { TestApp } from './start-test-app.ts';

let counter = 0;

/** How an actor calls /rest/v1: with its API key, or with a workspace sign-in session (cookie + X-Requested-With). */
export type Via = 'apiKey' | 'session';
export const VIAS: readonly Via[] = ['apiKey', 'session'];

export interface Actor {
  user: User;
  key: string;
  keyId: string;
  /** The REST client: through the key, or through a session when created with `via: 'session'`. */
  api: HttpClient;
  /** Puts clients on the key's allow-list (edits, deletes and uploads need them there). */
  allow(...clientIds: string[]): Promise<void>;
}

/** A user of the organization with a personal API key, and a REST client using that key. */
export async function createActor(
  app: TestApp,
  options: {
    role?: Role;
    scope?: KeyScope;
    clientIds?: string[];
    email?: string;
    expiresAt?: Date;
    organizationId?: string;
    /** Call /rest/v1 with a signed-in session instead of the key (default the key). */
    via?: Via;
  } = {},
): Promise<Actor> {
  const users = new UserRepository(app.dbs.controlPlane);
  // Default: the first organization (self-hosted's only one).
  const org = options.organizationId
    ? { id: options.organizationId }
    : await app.dbs.controlPlane('organizations').orderBy('created_at').first();
  counter += 1;
  const user = await users.create({
    organizationId: org.id,
    email: options.email ?? `user${counter}-${Date.now()}@example.com`,
    name: `User ${counter}`,
    role: options.role ?? 'member',
    password: 'a-long-test-password',
  });
  const { key, value } = await new ApiKeyRepository(app.dbs.controlPlane).create({
    organizationId: org.id,
    userId: user.id,
    name: 'test key',
    scope: options.scope ?? 'read-write',
    expiresAt: options.expiresAt ?? new Date(Date.now() + 86_400_000),
    clientIds: options.clientIds ?? [],
  });
  const allowed = new Set(options.clientIds ?? []);
  const allow = async (...clientIds: string[]) => {
    for (const id of clientIds) allowed.add(id);
    await app.dbs
      .controlPlane('api_keys')
      .where({ id: key.id })
      .update({ client_ids: [...allowed] });
  };
  const api =
    options.via === 'session'
      ? await sessionRestClient(app, user.email)
      : httpClient(`${app.url}/rest/v1`, { token: value });
  return { user, key: value, keyId: key.id, api, allow };
}

/** A /rest/v1 client of a signed-in session: the cookie and `X-Requested-With` on every request. */
async function sessionRestClient(app: Pick<TestApp, 'url'>, email: string): Promise<HttpClient> {
  const { cookie } = await signIn(app, email, 'a-long-test-password');
  return httpClient(`${app.url}/rest/v1`, { headers: { cookie, 'x-requested-with': 'XMLHttpRequest' } });
}

/**
 * Signs in through the real endpoint and returns a client carrying the session cookie. The hosted
 * edition needs the organization's slug.
 */
export async function signIn(
  app: Pick<TestApp, 'url'>,
  email: string,
  password: string,
  organization?: string,
): Promise<HttpClient & { cookie: string }> {
  const res = await fetch(`${app.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
    body: JSON.stringify({ email, password, organization }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  return { ...httpClient(app.url, { headers: { cookie, 'x-requested-with': 'XMLHttpRequest' } }), cookie };
}
