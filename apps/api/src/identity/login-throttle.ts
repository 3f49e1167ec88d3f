import type { RateLimitStore } from '@service/http';

/**
 * Slows down password guessing: after 5 failed sign-ins for one account, or 30 from one address,
 * within 15 minutes, further attempts are refused (429 with Retry-After) until the window frees
 * budget. Successful sign-ins cost nothing. Counters live in the shared rate-limit store.
 */
export interface LoginThrottle {
  /** Seconds to wait before trying again, or null when an attempt may go ahead. */
  retryAfter(email: string, ip: string): Promise<number | null>;
  recordFailure(email: string, ip: string): Promise<void>;
}

const WINDOW_MS = 15 * 60 * 1000;
const PER_ACCOUNT = 5;
const PER_IP = 30;

export function createLoginThrottle(store: RateLimitStore): LoginThrottle {
  const keys = (email: string, ip: string) => [
    { key: `login-fail:account:${email}`, limit: PER_ACCOUNT },
    { key: `login-fail:ip:${ip}`, limit: PER_IP },
  ];
  return {
    async retryAfter(email, ip) {
      let wait = 0;
      for (const { key, limit } of keys(email, ip)) {
        // Why: a cost-0 consume reads the budget without spending it; when it is spent, a cost-1
        // consume is refused (and charges nothing) and says exactly when the next attempt fits.
        const read = await store.consume(key, 0, limit, WINDOW_MS, Date.now());
        if (read.remaining <= 0) {
          const probe = await store.consume(key, 1, limit, WINDOW_MS, Date.now());
          if (!probe.allowed) wait = Math.max(wait, Math.max(1, Math.ceil(probe.retryAfterMs / 1000)));
        }
      }
      return wait > 0 ? wait : null;
    },
    async recordFailure(email, ip) {
      for (const { key, limit } of keys(email, ip)) await store.consume(key, 1, limit, WINDOW_MS, Date.now());
    },
  };
}
