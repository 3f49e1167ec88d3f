// The tests' HTTP client sends a request again after its connection closed without an answer only
// where @service/client would: what the document says is safe to resend, keyed creates that carry
// an Idempotency-Key. A server that drops the first connection of each request shows it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from './support/http-client.ts';

let server: Server;
let base: string;
/** Requests seen, by `METHOD /path`. */
const seen = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const what = `${req.method} ${req.url}`;
    const times = (seen.get(what) ?? 0) + 1;
    seen.set(what, times);
    // No document here: the client checks answers only against a service's own.
    if (req.url === '/api/rest-docs/openapi' || times > 1) {
      res.writeHead(req.url === '/api/rest-docs/openapi' ? 404 : 200, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    req.socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the test HTTP client after a lost connection', () => {
  const api = () => httpClient(`${base}/rest/v1`);
  const id = '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b';

  it('sends a read again, as the service client would', async () => {
    expect((await api().get('/clients')).status).toBe(200);
    expect(seen.get('GET /rest/v1/clients')).toBe(2);
  });

  it('sends a keyed create again only with its Idempotency-Key', async () => {
    const keyed = await api().post('/clients', { name: 'A' }, { headers: { 'Idempotency-Key': 'k1' } });
    expect(keyed.status).toBe(200);
    expect(seen.get('POST /rest/v1/clients')).toBe(2);
    seen.delete('POST /rest/v1/clients');
    await expect(api().post('/clients', { name: 'A' })).rejects.toThrow('fetch failed');
    expect(seen.get('POST /rest/v1/clients')).toBe(1);
  });

  it('never sends again what may have been carried out: a PATCH, a permanent delete', async () => {
    await expect(api().patch(`/clients/${id}`, { name: 'B' })).rejects.toThrow('fetch failed');
    expect(seen.get(`PATCH /rest/v1/clients/${id}`)).toBe(1);
    await expect(api().delete(`/findings/${id}`)).rejects.toThrow('fetch failed');
    expect(seen.get(`DELETE /rest/v1/findings/${id}`)).toBe(1);
  });
});
