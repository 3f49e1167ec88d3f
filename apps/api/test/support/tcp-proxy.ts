import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy whose traffic can be stopped (connections stay open, nothing moves) and resumed,
 * whose new connections can be refused (a server that is gone), and which can cut a connection
 * after it has carried so many bytes upstream (a store failing in the middle of an upload).
 */
export class FreezableProxy {
  private readonly pairs: Array<[Socket, Socket]> = [];
  private readonly waiting: Socket[] = [];
  private frozen = false;
  private refusing = false;
  private cutAfterBytes: number | null = null;
  /** Bytes each connection carried upstream since `cutNextAfter`. */
  private readonly carried = new Map<Socket, number>();
  /** Connections cut by `cutNextAfter`. */
  cuts = 0;
  private server: Server | null = null;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      client.on('error', () => client.destroy());
      if (this.refusing) client.destroy();
      else if (this.frozen) this.waiting.push(client);
      else this.link(client);
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  private link(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      if (this.cutAfterBytes === null) return;
      const carried = (this.carried.get(client) ?? 0) + chunk.length;
      this.carried.set(client, carried);
      if (carried >= this.cutAfterBytes) {
        this.cutAfterBytes = null;
        this.cuts++;
        client.destroy();
        upstream.destroy();
      }
    });
    this.pairs.push([client, upstream]);
  }

  /** Refuses new connections and drops open ones (true), or accepts them again (false). */
  refuse(on: boolean): void {
    this.refusing = on;
    if (!on) return;
    for (const [a, b] of this.pairs.splice(0)) {
      a.destroy();
      b.destroy();
    }
  }

  /** Cuts the next connection that carries `bytes` upstream (once). */
  cutNextAfter(bytes: number): void {
    this.carried.clear();
    this.cutAfterBytes = bytes;
  }

  freeze(): void {
    this.frozen = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  thaw(): void {
    this.frozen = false;
    for (const [client, upstream] of this.pairs) {
      client.pipe(upstream);
      upstream.pipe(client);
    }
    for (const client of this.waiting.splice(0)) this.link(client);
  }

  async stop(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    for (const s of this.waiting) s.destroy();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}
