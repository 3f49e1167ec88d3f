import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The status the service answered, whether or not the caller got it. */
  status: number;
  dropped: boolean;
  headers: IncomingMessage['headers'];
}

export interface AnswerDroppingProxy {
  url: string;
  /** Every request that went through, in order. */
  seen: ProxiedRequest[];
  /** The next request matching `method` and `path` reaches the service, which answers; the caller gets a closed socket. */
  dropNextAnswer(method: string, path: RegExp): void;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of the service that can lose an answer the way a network does: the request
 * is forwarded and answered in full (the service did the work), then the caller's connection is
 * closed before a byte of the answer is sent.
 */
export async function startAnswerDroppingProxy(target: string): Promise<AnswerDroppingProxy> {
  const upstream = new URL(target);
  const seen: ProxiedRequest[] = [];
  const drops: Array<{ method: string; path: RegExp }> = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const dropAt = drops.findIndex((d) => d.method === req.method && d.path.test(path.split('?')[0]!));
    const drop = dropAt >= 0;
    if (drop) drops.splice(dropAt, 1);
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          seen.push({ method: req.method!, path, status: answer.statusCode!, dropped: drop, headers: answer.headers });
          if (drop) {
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.statusCode!, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    forward.on('error', () => req.socket.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    dropNextAnswer: (method, path) => void drops.push({ method, path }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
