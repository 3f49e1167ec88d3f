import type { RateLimitStore } from '@service/http';

/**
 * Slows down password guessing: at most 5 failed sign-ins per account and 30 per address within
 * 15 minutes; further attempts are refused (429 with Retry-After) until the window frees budget.
 *
 * Why charge first: an attempt is counted, in one atomic store operation per budget, BEFORE its
 * password is checked, and given back when it succeeds. Checking the budget and counting the
 * failure afterwards let 40 parallel guesses all pass the check before any was counted. So
 * successful sign-ins still cost nothing, and at most 5 guesses per account are ever checked.
 */
export interface LoginThrottle {
  /** Takes one attempt from both budgets: the attempt to settle, or the seconds to wait (nothing taken). */
  begin(email: string, ip: string): Promise<{ retryAfterSeconds: number } | { attempt: LoginAttempt }>;
}

export interface LoginAttempt {
  /** The password was right: the attempt is given back. A failed attempt stays counted. */
  succeeded(): Promise<void>;
}

const WINDOW_MS = 15 * 60 * 1000;
const PER_ACCOUNT = 5;
const PER_IP = 30;

export function createLoginThrottle(store: RateLimitStore): LoginThrottle {
  return {
    async begin(email, ip) {
      const at = Date.now();
      const charged: string[] = [];
      const giveBack = async () => {
        for (const key of charged) await store.refund(key, 1, WINDOW_MS, at);
      };
      for (const { key, limit } of [
        { key: `login-fail:account:${email}`, limit: PER_ACCOUNT },
        { key: `login-fail:ip:${ip}`, limit: PER_IP },
      ]) {
        const decision = await store.consume(key, 1, limit, WINDOW_MS, at);
        if (!decision.allowed) {
          await giveBack();
          return { retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
        }
        charged.push(key);
      }
      return { attempt: { succeeded: giveBack } };
    },
  };
}
