import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError, fileFrom, fileNameOf, nextLink, retryAfterSeconds, serializeBody } from './index.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'client-helpers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('nextLink', () => {
  it('finds rel="next" among the links the service writes, and null on the last page', () => {
    const header =
      '<https://r.example/rest/v1/findings?q=a%2Cb&page=1&per_page=2>; rel="first", ' +
      '<https://r.example/rest/v1/findings?q=a%2Cb&page=2&per_page=2>; rel="next", ' +
      '<https://r.example/rest/v1/findings?q=a%2Cb&page=3&per_page=2>; rel="last"';
    expect(nextLink(header)).toBe('https://r.example/rest/v1/findings?q=a%2Cb&page=2&per_page=2');
    expect(nextLink('<https://r.example/x?page=1>; rel="first", <https://r.example/x?page=1>; rel="last"')).toBeNull();
    expect(nextLink(null)).toBeNull();
  });
});

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-02T09:30:00Z');
    expect(retryAfterSeconds('5', now)).toBe(5);
    expect(retryAfterSeconds('Mon, 02 Nov 2026 09:30:10 GMT', now)).toBe(10);
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds(null, now)).toBeNull();
  });
});

describe('ApiError', () => {
  it('carries status, code, details and the request id of an error answer', () => {
    const response = new Response(null, { status: 422, headers: { 'X-Request-Id': 'req-1', 'Retry-After': '3' } });
    const error = ApiError.fromAnswer(
      response,
      {
        error: {
          code: 'invalid_reference',
          message: 'No such client.',
          details: [{ path: '/clientId', message: 'x' }],
        },
      },
      'POST /rest/v1/projects',
    );
    expect(error).toMatchObject({
      status: 422,
      code: 'invalid_reference',
      details: [{ path: '/clientId', message: 'x' }],
      requestId: 'req-1',
      retryAfterSeconds: 3,
    });
    expect(error.message).toBe('POST /rest/v1/projects: 422 invalid_reference: No such client.');
    expect(ApiError.fromAnswer(new Response(null, { status: 502 }), 'bad gateway', 'GET /x')).toMatchObject({
      code: 'http_502',
      details: [],
    });
  });
});

describe('fileFrom and serializeBody', () => {
  it('makes Files from a path, bytes, a Node stream and a web stream, and refuses a stream over the cap', async () => {
    writeFileSync(path.join(dir, 'scan.nessus'), '<NessusClientData_v2/>');
    const fromPath = await fileFrom(path.join(dir, 'scan.nessus'));
    expect([fromPath.name, await fromPath.text()]).toEqual(['scan.nessus', '<NessusClientData_v2/>']);
    const fromBytes = await fileFrom(Buffer.from('abc'), { name: 'a.txt', type: 'text/plain' });
    expect([fromBytes.name, fromBytes.type, await fromBytes.text()]).toEqual(['a.txt', 'text/plain', 'abc']);
    const fromNode = await fileFrom(Readable.from([Buffer.from('one '), 'two']), { name: 'n.md' });
    expect(await fromNode.text()).toBe('one two');
    const fromWeb = await fileFrom(Readable.toWeb(Readable.from([Buffer.from('web')])), { name: 'w.md' });
    expect(await fromWeb.text()).toBe('web');
    await expect(fileFrom(Readable.from([Buffer.alloc(11)]), { maxBytes: 10 })).rejects.toThrow(/longer than 10 bytes/);
    await expect(fileFrom(dir)).rejects.toThrow(/is not a file/);
  });

  it('sends a body holding a file as multipart, any other as JSON', async () => {
    const file = new File(['png'], 'shot.png', { type: 'image/png' });
    const form = serializeBody({ findingId: 'f-1', caption: undefined, file });
    expect(form).toBeInstanceOf(FormData);
    const parts = form as FormData;
    expect(parts.get('findingId')).toBe('f-1');
    expect(parts.has('caption')).toBe(false);
    expect((parts.get('file') as File).name).toBe('shot.png');
    expect(serializeBody({ name: 'A' })).toBe('{"name":"A"}');
  });

  it('reads the file name of a download', () => {
    expect(fileNameOf(`attachment; filename="Q4 test.docx"; filename*=UTF-8''Q4%20test%20%E2%9C%93.docx`)).toBe(
      'Q4 test ✓.docx',
    );
    expect(fileNameOf('attachment; filename="plain.csv"')).toBe('plain.csv');
    expect(fileNameOf(null)).toBeNull();
  });
});
