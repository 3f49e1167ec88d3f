import { describe, expect, it } from 'vitest';
import { canonicalIp, clientIp } from './client-ip.ts';
import { ipRateLimitKey } from './ip-rate-limit-key.ts';

const request = (remoteAddress: string | undefined, xff?: string) => ({
  req: { socket: { remoteAddress } },
  get: (field: string) => (field.toLowerCase() === 'x-forwarded-for' ? (xff ?? '') : ''),
});

const PROXIES = ['10.0.0.0/8', '192.168.1.5', 'fd00::/8', '::1', '::ffff:172.16.0.0/108'];

describe('clientIp', () => {
  it.each([
    // [case, peer, X-Forwarded-For, trusted list, expected]
    ['no proxies trusted: the peer, header ignored', '203.0.113.7', '198.51.100.1', [], '203.0.113.7'],
    ['untrusted peer: spoofed header ignored', '203.0.113.7', '10.0.0.1, 198.51.100.1', PROXIES, '203.0.113.7'],
    ['trusted exact proxy: rightmost hop', '192.168.1.5', '198.51.100.1', PROXIES, '198.51.100.1'],
    ['trusted proxy in a v4 range', '10.2.3.4', '198.51.100.1', PROXIES, '198.51.100.1'],
    [
      'client-written hops left of the real one are ignored',
      '10.2.3.4',
      '1.1.1.1, 6.6.6.6, 198.51.100.1',
      PROXIES,
      '198.51.100.1',
    ],
    [
      'a chain of trusted proxies is skipped from the right',
      '10.0.0.2',
      '198.51.100.1, 192.168.1.5, 10.9.9.9',
      PROXIES,
      '198.51.100.1',
    ],
    [
      'spoofed trusted address left of the client does not help',
      '10.0.0.2',
      '10.0.0.3, 198.51.100.1',
      PROXIES,
      '198.51.100.1',
    ],
    ['trusted peer without the header: the peer', '10.0.0.2', undefined, PROXIES, '10.0.0.2'],
    ['every hop trusted: the leftmost', '10.0.0.2', '10.0.0.9, 192.168.1.5', PROXIES, '10.0.0.9'],
    ['malformed hop: the last trusted address', '10.0.0.2', 'evil, unknown', PROXIES, '10.0.0.2'],
    ['malformed hop after a trusted one', '10.0.0.2', 'unknown, 10.0.0.7', PROXIES, '10.0.0.7'],
    ['IPv4-mapped peer in a v4 range', '::ffff:10.1.1.1', '198.51.100.1', PROXIES, '198.51.100.1'],
    ['IPv4-mapped untrusted peer comes back as IPv4', '::ffff:203.0.113.7', '198.51.100.1', PROXIES, '203.0.113.7'],
    ['mapped range entry trusts the IPv4 peer', '172.31.4.4', '198.51.100.1', PROXIES, '198.51.100.1'],
    ['mapped range entry does not trust outside it', '172.32.4.4', '198.51.100.1', PROXIES, '172.32.4.4'],
    ['IPv6 loopback proxy', '::1', '2001:db8::7', PROXIES, '2001:db8::7'],
    ['IPv6 range proxy, client hop spelled long', 'fd12:3456::1', '2001:0DB8:0000::7', PROXIES, '2001:db8::7'],
    ['IPv6 untrusted peer', '2001:db8::1', '198.51.100.1', PROXIES, '2001:db8::1'],
    ['mapped client hop becomes IPv4', '::1', '::ffff:198.51.100.1', PROXIES, '198.51.100.1'],
    ['hops with ports and brackets', '::1', '[2001:db8::9]:4711, 198.51.100.1:80', PROXIES, '198.51.100.1'],
    ['bracketed IPv6 hop with port', '::1', '[2001:db8::9]:4711', PROXIES, '2001:db8::9'],
    ['repeated headers joined by Node', '10.0.0.2', '198.51.100.1,  , 10.0.0.8', PROXIES, '198.51.100.1'],
    ['closed socket', undefined, '198.51.100.1', PROXIES, 'unknown'],
  ] as const)('%s', (_case, peer, xff, trusted, expected) => {
    expect(clientIp(request(peer, xff), trusted)).toBe(expected);
  });

  it('names a bad TRUST_PROXY entry', () => {
    for (const bad of ['10.0.0.0/33', 'proxy.local', '10.0.0.1:80', 'fd00::/129', '10.0.0.0/8/1', '10.0.0.0/x']) {
      expect(() => clientIp(request('10.0.0.1', '1.2.3.4'), [bad])).toThrow(`TRUST_PROXY entry "${bad}"`);
    }
  });
});

describe('canonicalIp', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' ::FFFF:127.0.0.1 ', '127.0.0.1'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['010.1.1.1', null],
    ['unknown', null],
    ['', null],
  ])('%s -> %s', (raw, expected) => {
    expect(canonicalIp(raw)).toBe(expected);
  });
});

describe('ipRateLimitKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::ffff:198.51.100.1', '198.51.100.1'],
  ])('%s -> %s', (ip, expected) => {
    expect(ipRateLimitKey(ip)).toBe(expected);
  });
});
