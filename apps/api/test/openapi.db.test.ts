import type Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@service/config';
import { createKnex } from '@service/db';
import { createJsonLogger, MemoryRateLimitStore } from '@service/http';
import { TenantRouter } from '@service/tenancy';
import { createApp, readBuildInfo } from '../src/index.ts';
import { httpClient } from './support/http-client.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';
import { storedFilesOf } from '../src/files/open-stored-files.ts';

type Operation = {
  operationId: string;
  description?: string;
  parameters?: Array<{ $ref?: string; name?: string; in?: string }>;
  requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
  responses: Record<
    string,
    { description: string; headers?: Record<string, { $ref?: string }>; content?: Record<string, { schema: unknown }> }
  >;
  security?: Array<Record<string, unknown>>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
  info: Record<string, unknown>;
};

let app: TestApp;
let doc: Doc;
beforeAll(async () => {
  app = await startTestApp();
  const res = await httpClient(app.url).get('/api/rest-docs/openapi');
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await app?.stop();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path: p, method, op, where: `${method.toUpperCase()} ${p}` })),
  );

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc).toMatchObject({ openapi: '3.1.0' });
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has a licence, and every operation a camelCase operationId and a description', () => {
    expect(doc.info.license).toMatchObject({ name: expect.any(String) });
    for (const { op, where } of operations()) {
      expect(op.operationId, where).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(op.description?.trim(), where).toBeTruthy();
    }
  });

  it('names a contact', () => {
    expect(doc.info.contact).toMatchObject({ name: expect.any(String) });
  });

  it('states the NUL rule on every text schema: no pattern it carries admits U+0000', () => {
    const probes = ['\u0000', 'a\u0000', '\u0000a', 'https://a.example/\u0000', 'mailto:\u0000', 'nessus:title=\u0000'];
    const problems: string[] = [];
    let texts = 0;
    const visit = (node: unknown, where: string): void => {
      if (Array.isArray(node)) {
        for (const [i, n] of node.entries()) visit(n, `${where}/${i}`);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema.type === 'string' && !schema.format && !('enum' in schema) && !('const' in schema)) {
        texts += 1;
        const pattern = schema.pattern as string | undefined;
        if (!pattern) problems.push(`${where}: text without a pattern`);
        else {
          const examples = [...((schema.examples as unknown[]) ?? []), schema.example].filter(
            (e) => typeof e === 'string',
          );
          for (const probe of [...probes, ...examples.map((e) => `${e}\u0000`)])
            if (new RegExp(pattern, 'u').test(probe))
              problems.push(`${where}: ${pattern} admits ${JSON.stringify(probe)}`);
        }
      }
      for (const [key, value] of Object.entries(schema))
        if (!['example', 'examples', 'enum', 'const', 'default'].includes(key)) visit(value, `${where}/${key}`);
    };
    // Error bodies are written by the service, never sent to it: the rule is about input.
    const { Error: _error, ErrorDetail: _detail, ...inputs } = doc.components.schemas!;
    visit(inputs, '#/components/schemas');
    for (const { op, where } of operations()) {
      visit(op.requestBody, `${where} requestBody`);
      visit(op.parameters, `${where} parameters`);
    }
    expect(problems).toEqual([]);
    expect(texts).toBeGreaterThan(100);
  });

  it('documents one shape of Error.details for every code', () => {
    const error = doc.components.schemas!.Error as { properties: { error: { properties: { details: unknown } } } };
    expect(error.properties.error.properties.details).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/ErrorDetail' },
    });
    expect(doc.components.schemas!.ErrorDetail).toMatchObject({
      required: ['path', 'message'],
      additionalProperties: false,
    });
  });

  it('documents the statuses and headers the machinery enforces, on every operation that can answer them', () => {
    for (const { method, op, where } of operations()) {
      const statuses = Object.keys(op.responses);
      const jsonBody = op.requestBody?.content['application/json'] !== undefined;
      const rest = op.security?.some((s) => 'apiKey' in s) ?? false;
      for (const [status, response] of Object.entries(op.responses))
        expect(response.headers?.['X-Request-Id'], `${where} ${status}`).toEqual({
          $ref: '#/components/headers/X-Request-Id',
        });
      if (op.requestBody) expect(statuses, where).toEqual(expect.arrayContaining(['400', '413', '415']));
      if (jsonBody) expect(op.responses['415']!.description, where).toContain('`unsupported_media_type`');
      if (rest) {
        expect(statuses, where).toEqual(expect.arrayContaining(['401', '403', '429', '503']));
        expect(op.responses['401']!.headers?.['WWW-Authenticate'], where).toBeDefined();
        for (const [status, response] of Object.entries(op.responses))
          expect(response.headers?.['X-RateLimit-Remaining'], `${where} ${status}`).toBeDefined();
      }
      if (op.responses['429']) expect(op.responses['429'].headers?.['Retry-After'], where).toBeDefined();
      if (op.responses['503'] && op.operationId !== 'getHealth')
        expect(op.responses['503'].headers?.['Retry-After'], where).toBeDefined();
      if (op.responses['201']) expect(op.responses['201'].headers?.Location, where).toBeDefined();
      const takesIdempotencyKey =
        op.parameters?.some((p) => p.$ref === '#/components/parameters/IdempotencyKey') ?? false;
      if (takesIdempotencyKey) {
        for (const [status, response] of Object.entries(op.responses))
          if (status.startsWith('2'))
            expect(response.headers?.['Idempotent-Replayed'], `${where} ${status}`).toBeDefined();
        expect(op.responses['400']!.description, where).toContain('`invalid_idempotency_key`');
      }
      if (rest && method === 'get' && op.responses['200']?.content?.['application/json']) {
        expect(statuses, where).toContain('304');
        expect(op.responses['200'].headers?.ETag, where).toBeDefined();
        expect(
          op.parameters?.some((p) => p.$ref === '#/components/parameters/IfNoneMatch'),
          where,
        ).toBe(true);
      }
      if (method === 'patch' && jsonBody)
        expect(Object.keys(op.requestBody!.content), where).toContain('application/merge-patch+json');
    }
    expect(doc.components.parameters!.IdempotencyKey).toMatchObject({
      in: 'header',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    });
    // The public endpoints list a 4xx each.
    for (const p of ['/api/health', '/api/version'])
      expect(
        Object.keys(doc.paths[p]!.get!.responses).some((s) => s.startsWith('4')),
        p,
      ).toBe(true);
  });

  it(
    'documents the cookie-session rules as a header and in the security scheme, and ' +
      'sign-in answers 403 cross_site_request and 429',
    () => {
      const login = doc.paths['/api/auth/login']!.post!;
      expect(Object.keys(login.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
      expect(login.responses['403']!.description).toContain('`cross_site_request`');
      expect(login.parameters).toContainEqual({ $ref: '#/components/parameters/XRequestedWith' });
      const createKey = doc.paths['/api/profile/api-keys']!.post!;
      expect(createKey.parameters).toContainEqual({ $ref: '#/components/parameters/XRequestedWith' });
      expect(doc.components.parameters!.XRequestedWith).toMatchObject({ in: 'header', required: true });
      expect((doc.components.securitySchemes!.session as { description: string }).description).toMatch(
        /X-Requested-With.*Origin/s,
      );
    },
  );

  it('lists every route the router serves, and nothing it does not serve', async () => {
    // The router of a freshly built app (no database needed to build it).
    const config = loadConfig({ DATABASE_URL: 'postgres://u:p@127.0.0.1:1/x' }, { envFile: null });
    const db = createKnex('postgres://u:p@127.0.0.1:1/x', 1);
    try {
      const tenants = new TenantRouter({ edition: 'self-hosted', controlPlane: db, configuredTenant: db });
      const built = createApp({
        config,
        dbs: { controlPlane: db, shared: db, tenant: db },
        logger: createJsonLogger('silent'),
        build: readBuildInfo('unknown'),
        currentLicense: () => null,
        rateLimitStore: new MemoryRateLimitStore(),
        tenants,
        files: storedFilesOf(config),
      });
      const router = (built.koa.middleware as Array<{ router?: Router }>).find((m) => m.router)!.router!;
      const served = new Set<string>();
      for (const layer of router.stack) {
        const openApiPath = String(layer.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        for (const method of layer.methods) if (method !== 'HEAD') served.add(`${method} ${openApiPath}`);
      }
      const documented = new Set(operations().map(({ where }) => where));
      const undocumented = new Set(built.registry.listUndocumentedRoutes().map((r) => `${r.method} ${r.path}`));
      expect(
        [...served].filter((r) => !documented.has(r) && !undocumented.has(r)),
        'served but not documented',
      ).toEqual([]);
      expect(
        [...documented].filter((r) => !served.has(r)),
        'documented but not served',
      ).toEqual([]);
      expect(
        [...undocumented].filter((r) => !served.has(r)),
        'declared undocumented but not served',
      ).toEqual([]);
      // Only HTML pages and static files stay out of the reference.
      expect(
        [...undocumented].every(
          (r) => !r.includes('/rest/') && !r.startsWith('POST') && !r.startsWith('PATCH') && !r.startsWith('DELETE'),
        ),
      ).toBe(true);
    } finally {
      await db.destroy();
    }
  });
});
