import { isIP } from 'node:net';
import { canonicalIp } from './client-ip.ts';

/**
 * The budget key for a client address (as returned by clientIp): an IPv4 address as is, an IPv6
 * address as its /64 network. Why: one IPv6 subscriber usually holds a whole /64 and can pick a new
 * address per request, so a per-/128 limit would not limit anyone.
 */
export function ipRateLimitKey(ip: string): string {
  const canonical = canonicalIp(ip) ?? ip;
  if (isIP(canonical) !== 6) return canonical;
  const [head = '', tail] = canonical.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
