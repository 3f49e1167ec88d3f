import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from './support/http-client.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await httpClient(app.url).get('/api/rest-docs/openapi');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every registered route', async () => {
    const doc = (await httpClient(app.url).get('/api/rest-docs/openapi')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/health', '/api/version']));
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { operationId: string; responses: object }>>)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${path}`).toBeTruthy();
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
  });
});
