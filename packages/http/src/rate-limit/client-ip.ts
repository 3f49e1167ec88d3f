import { BlockList, isIP } from 'node:net';

/** The parts of a Koa context clientIp reads (a Koa `Context` fits). */
export interface ClientIpSource {
  req: { socket: { remoteAddress?: string } };
  get(field: string): string;
}

const MAPPED_IPV4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * One spelling per address, so one client never gets two budgets: IPv6 lower-case and compressed,
 * IPv4-mapped IPv6 (`::ffff:127.0.0.1`, as dual-stack sockets report IPv4 peers) as plain IPv4.
 * Accepts the decorations proxies add (`[v6]`, `[v6]:port`, `v4:port`, a `%zone`). Null when it is
 * not an address at all (`unknown`, garbage).
 */
export function canonicalIp(raw: string): string | null {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.indexOf(':'));
  s = s.replace(/%[^%]*$/, '');
  const family = isIP(s);
  if (family === 4) return s;
  if (family !== 6) return null;
  const v6 = new URL(`http://[${s}]/`).hostname.slice(1, -1);
  const mapped = MAPPED_IPV4.exec(v6);
  if (!mapped) return v6;
  const hi = Number.parseInt(mapped[1]!, 16);
  const lo = Number.parseInt(mapped[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

const compiled = new WeakMap<readonly string[], BlockList>();

/**
 * Builds (once per list) the set of trusted proxies; throws naming the first entry that is not an address or CIDR
 * range.
 */
function trustedProxies(trustProxy: readonly string[]): BlockList {
  let list = compiled.get(trustProxy);
  if (list) return list;
  list = new BlockList();
  for (const entry of trustProxy) {
    const invalid = new Error(
      `TRUST_PROXY entry "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8, 127.0.0.1).`,
    );
    const [addressPart = '', prefixPart, extra] = entry.trim().split('/');
    const address = canonicalIp(addressPart);
    if (
      address === null ||
      isIP(addressPart) === 0 ||
      extra !== undefined ||
      (prefixPart !== undefined && !/^\d{1,3}$/.test(prefixPart))
    )
      throw invalid;
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefixPart === undefined) {
      list.addAddress(address, type);
      continue;
    }
    // Why: `::ffff:10.0.0.0/104` canonicalises to IPv4, so its prefix loses the 96 mapping bits.
    const prefix = Number(prefixPart) - (type === 'ipv4' && addressPart.includes(':') ? 96 : 0);
    if (prefix < 0 || prefix > (type === 'ipv6' ? 128 : 32)) throw invalid;
    list.addSubnet(address, prefix, type);
  }
  compiled.set(trustProxy, list);
  return list;
}

function isTrusted(list: BlockList, ip: string): boolean {
  return list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * True when the socket peer is one of the trusted proxies (`TRUST_PROXY`), so the `X-Forwarded-*`
 * headers of this request were written by our own proxy and may be believed.
 */
export function peerIsTrustedProxy(ctx: ClientIpSource, trustProxy: readonly string[]): boolean {
  const rawPeer = ctx.req.socket.remoteAddress;
  if (!rawPeer || trustProxy.length === 0) return false;
  return isTrusted(trustedProxies(trustProxy), canonicalIp(rawPeer) ?? rawPeer);
}

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy (`TRUST_PROXY`: exact
 * addresses or CIDR ranges, IPv4 or IPv6). Then `X-Forwarded-For` is walked from the right, skipping
 * trusted proxies, and the first untrusted address is the client. Entries further left were written by
 * the client itself and are never believed, and an untrusted peer's header is ignored altogether.
 * Returned in canonical form (see canonicalIp). When every hop is trusted, the leftmost one; when a
 * hop is malformed, the last trusted hop before it (spoofing then only throttles the proxy's budget).
 */
export function clientIp(ctx: ClientIpSource, trustProxy: readonly string[]): string {
  const rawPeer = ctx.req.socket.remoteAddress;
  // Why: the socket has no address only once it is closed; such requests all share one budget.
  if (!rawPeer) return 'unknown';
  const peer = canonicalIp(rawPeer) ?? rawPeer;
  if (trustProxy.length === 0) return peer;
  const trusted = trustedProxies(trustProxy);
  if (!isTrusted(trusted, peer)) return peer;
  const hops = ctx.get('X-Forwarded-For').split(',');
  let current = peer;
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const text = hops[i]!.trim();
    if (text === '') continue;
    const hop = canonicalIp(text);
    if (hop === null) return current;
    current = hop;
    if (!isTrusted(trusted, hop)) return hop;
  }
  return current;
}
