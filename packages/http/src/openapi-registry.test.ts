import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { OpenApiRegistry, type OperationDoc } from './openapi-registry.ts';

const base: OperationDoc = {
  method: 'get',
  path: '/things',
  operationId: 'listThings',
  summary: 'List things',
  description: 'Lists things.',
  tags: ['Things'],
  security: 'apiKey',
  responses: { 200: { description: 'ok' } },
};
const Thing = Type.Object(
  { id: Type.String({ format: 'uuid' }), name: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

describe('OpenApiRegistry', () => {
  it('refuses a non-camelCase operationId at registration, saying what to rename it to', () => {
    const registry = new OpenApiRegistry();
    expect(() => registry.addOperation({ ...base, operationId: 'list-report_findings' })).toThrow(
      'OpenAPI: the operationId "list-report_findings" of GET /things is not camelCase ' +
        '(generated clients name methods after it); rename it to "listReportFindings".',
    );
    expect(() => registry.addOperation({ ...base, operationId: 'ListThings' })).toThrow(/rename it to "listThings"/);
  });

  it('refuses an operation without a description, and a duplicate operationId', () => {
    const registry = new OpenApiRegistry();
    expect(() => registry.addOperation({ ...base, description: ' ' })).toThrow(
      'OpenAPI: GET /things (listThings) has no description; say what it does and what it answers.',
    );
    registry.addOperation(base);
    expect(() => registry.addOperation({ ...base, path: '/other' })).toThrow(/already used by GET \/things/);
  });

  it('throws, naming the operation, when an example does not match its schema', () => {
    const registry = new OpenApiRegistry();
    registry.addSchema('Thing', Thing);
    registry.addOperation({
      ...base,
      responses: {
        200: {
          description: 'ok',
          schema: { arrayOf: 'Thing' },
          example: [{ id: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f' }],
        },
      },
    });
    expect(() => registry.document({ title: 't', version: '1' })).toThrow(
      /the example of the 200 response of GET \/things \(listThings\) does not match its schema \(\/0 must have required properties name/,
    );
    const body = new OpenApiRegistry();
    body.addOperation({
      ...base,
      method: 'post',
      operationId: 'createThing',
      body: { schema: Thing, example: { id: 'nope', name: 'x' } },
      responses: { 201: { description: 'created' } },
    });
    expect(() => body.document({ title: 't', version: '1' })).toThrow(
      /the example of the request body of POST \/things \(createThing\)/,
    );
  });

  it('documents the statuses, headers and parameters the machinery knows', () => {
    const registry = new OpenApiRegistry();
    registry.addSchema('Thing', Thing);
    registry.addOperation({
      ...base,
      method: 'post',
      operationId: 'createThing',
      headers: [{ name: 'Idempotency-Key', description: 'whatever the route says' }],
      body: { schema: Thing },
      responses: {
        201: { description: 'Created.', schema: 'Thing' },
        422: { description: 'Reused key (`idempotency_key_reused`).', schema: 'Error' },
      },
    });
    registry.addOperation({
      ...base,
      path: '/things/{id}',
      operationId: 'getThing',
      params: Type.Object({ id: Type.String() }),
      responses: { 200: { description: 'One thing.', schema: 'Thing' } },
    });
    registry.addOperation({
      ...base,
      method: 'patch',
      path: '/things/{id}',
      operationId: 'updateThing',
      params: Type.Object({ id: Type.String() }),
      body: { schema: Type.Object({ name: Type.Optional(Type.String()) }) },
      responses: { 200: { description: 'Changed.', schema: 'Thing' } },
    });
    registry.addOperation({
      ...base,
      method: 'post',
      path: '/session-things',
      operationId: 'createSessionThing',
      security: 'session',
      body: { schema: Thing },
      responses: { 204: { description: 'Done.' } },
    });
    // biome-ignore lint/suspicious/noExplicitAny: the test reads deep into the document it made; the validator test checks its shape.
    const doc = registry.document({ title: 't', version: '1' }) as any;
    const create = doc.paths['/things'].post;
    expect(Object.keys(create.responses)).toEqual([
      '201',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '422',
      '429',
      '503',
    ]);
    expect(create.responses['201'].headers).toMatchObject({
      Location: { $ref: '#/components/headers/Location' },
      'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' },
    });
    expect(create.responses['400'].description).toContain('`invalid_idempotency_key`');
    expect(create.responses['415'].description).toContain('`unsupported_media_type`');
    expect(create.responses['422'].description).toBe('Reused key (`idempotency_key_reused`).');
    expect(create.responses['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(create.responses['503'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(create.responses['401'].headers['WWW-Authenticate']).toBeDefined();
    expect(create.parameters).toEqual([{ $ref: '#/components/parameters/IdempotencyKey' }]);
    expect(doc.components.parameters.IdempotencyKey.schema).toMatchObject({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
    });
    const get = doc.paths['/things/{id}'].get;
    expect(get.responses['304']).toBeDefined();
    expect(get.responses['200'].headers.ETag).toBeDefined();
    expect(get.parameters).toContainEqual({ $ref: '#/components/parameters/IfNoneMatch' });
    const patch = doc.paths['/things/{id}'].patch;
    expect(patch.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/UpdateThingRequest',
    });
    expect(patch.requestBody.content['application/merge-patch+json'].schema).toEqual({
      $ref: '#/components/schemas/UpdateThingRequest',
    });
    const session = doc.paths['/session-things'].post;
    expect(session.parameters).toEqual([{ $ref: '#/components/parameters/XRequestedWith' }]);
    expect(session.responses['403'].description).toContain('`cross_site_request`');
    expect(session.responses['429']).toBeUndefined();
  });

  it('refers to a registered schema instead of repeating it, and leaves out components nothing uses', () => {
    const registry = new OpenApiRegistry();
    registry.addSchema('Thing', Thing);
    registry.addSchema('Unused', Type.Object({ never: Type.String() }));
    registry.addOperation({
      ...base,
      method: 'post',
      operationId: 'importThings',
      body: { schema: Type.Object({ things: Type.Array(Thing) }) },
      responses: { 200: { description: 'Imported.' } },
    });
    // biome-ignore lint/suspicious/noExplicitAny: the test reads deep into the document it made; the validator test checks its shape.
    const doc = registry.document({ title: 't', version: '1' }) as any;
    expect(doc.paths['/things'].post.requestBody.content['application/json'].schema.properties.things.items).toEqual({
      $ref: '#/components/schemas/Thing',
    });
    expect(Object.keys(doc.components.schemas).sort()).toEqual(['Error', 'ErrorDetail', 'Thing']);
    expect(doc.info.license).toEqual({ name: 'Proprietary', identifier: 'LicenseRef-Proprietary' });
  });
});
