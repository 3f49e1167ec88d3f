// Issue 27 item 3: a JSON body nested 100,000 levels deep answers 400 `json_too_deep` on every
// operation that takes a JSON body (walked from the published document, so a new route is covered
// by itself), the unauthenticated sign-in included, and nothing is logged as a failure. Routes
// whose body cap is below the 200 KB such a body takes (sign-in, keys, users: 16 or 64 KB) answer
// 413 before reading it; they get 5,000 levels (10 KB) as well, which must answer json_too_deep.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, signIn, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from './support/start-test-app.ts';

const LEVELS = 100_000;
const SMALL_LEVELS = 5_000;
const deep = (levels: number) => `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`;
const SOME_ID = '00000000-0000-4000-8000-000000000000';

interface Operation {
  method: string;
  path: string;
  security: 'apiKey' | 'session' | 'public';
}

let app: TestApp;
let admin: Actor;
let cookie: string;
let operations: Operation[];

beforeAll(async () => {
  app = await startTestApp();
  admin = await createActor(app, { role: 'admin' });
  ({ cookie } = await signIn(app, 'admin@example.com', TEST_ADMIN_PASSWORD));
  const doc = (await (await fetch(`${app.url}/api/rest-docs/openapi`)).json()) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> }; security?: unknown[] }>>;
  };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => op.requestBody?.content['application/json'] !== undefined)
      .map(([method, op]) => ({ method, path, security: securityOf(op.security) })),
  );
});
afterAll(async () => {
  await app?.stop();
});

function securityOf(security: unknown[] | undefined): Operation['security'] {
  const names = (security ?? []).flatMap((s) => Object.keys(s as object));
  if (names.some((n) => /bearer|key/i.test(n))) return 'apiKey';
  if (names.length > 0) return 'session';
  return 'public';
}

async function sendDeep(op: Operation, levels: number): Promise<{ status: number; code: string | undefined }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' };
  if (op.security === 'apiKey') headers.authorization = `Bearer ${admin.key}`;
  if (op.security === 'session') headers.cookie = cookie;
  const res = await fetch(`${app.url}${op.path.replace(/\{[^}]+\}/g, SOME_ID)}`, {
    method: op.method.toUpperCase(),
    headers,
    body: deep(levels),
  });
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, code: body.error?.code };
}

describe(`a JSON body nested ${LEVELS.toLocaleString('en')} levels deep`, () => {
  it('is sent to every JSON operation of the document, the sign-in among them', () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(operations).toContainEqual({ method: 'post', path: '/api/auth/login', security: 'public' });
    expect(operations.some((op) => op.security === 'apiKey')).toBe(true);
  });

  it('answers 400 json_too_deep on each, and logs no failure', async () => {
    const answers: Record<string, string> = {};
    for (const op of operations) {
      let { status, code } = await sendDeep(op, LEVELS);
      if (status === 413 && code === 'payload_too_large') ({ status, code } = await sendDeep(op, SMALL_LEVELS));
      answers[`${op.method.toUpperCase()} ${op.path}`] = `${status} ${code}`;
    }
    const wrong = Object.entries(answers).filter(([, answer]) => answer !== '400 json_too_deep');
    expect(wrong).toEqual([]);
    expect(app.logLines.filter((line) => line.includes('"request_failed"'))).toEqual([]);
  });
});
