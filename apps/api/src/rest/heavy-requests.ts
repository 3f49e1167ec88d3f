import type { Context, Middleware } from 'koa';
import { TooManyConcurrentError } from '@service/http';

/** How many of one user's heavy requests may wait for their turn (more answer 429). */
export const HEAVY_REQUESTS_WAITING_PER_USER = 64;
const RETRY_AFTER_SECONDS = 5;

interface Caller {
  running: number;
  waiting: Array<() => void>;
}

/**
 * One user's heavy requests (searches, imports, exports) run at most `perUser` at a time; the
 * others wait their turn in order, before their body is read and without holding a database
 * connection, so twenty parallel worst-case requests of one caller take at most `perUser` of the
 * pool and everyone else's requests go on as before. A slot is held until the response is closed
 * (also a streamed one). Per process: several service processes each allow `perUser`.
 */
export class HeavyRequests {
  private readonly callers = new Map<string, Caller>();

  constructor(private readonly perUser: number) {}

  /** Requests of `caller` running and waiting now (for tests and the log). */
  load(caller: string): { running: number; waiting: number } {
    const c = this.callers.get(caller);
    return { running: c?.running ?? 0, waiting: c?.waiting.length ?? 0 };
  }

  /** Runs the rest of the request in its caller's turn. */
  middleware(callerOf: (ctx: Context) => string): Middleware {
    return async (ctx, next) => {
      const caller = callerOf(ctx);
      const release = await this.turn(caller, ctx);
      if (!release) return; // the client left while waiting: nothing to answer
      let released = false;
      const releaseOnce = () => {
        if (released) return;
        released = true;
        release();
      };
      ctx.res.once('close', releaseOnce);
      try {
        await next();
      } catch (err) {
        releaseOnce();
        throw err;
      }
      if (ctx.res.writableFinished || ctx.res.destroyed) releaseOnce();
    };
  }

  /** Waits for a slot of `caller`; null when the client closed the connection while waiting. */
  private async turn(caller: string, ctx: Context): Promise<(() => void) | null> {
    let c = this.callers.get(caller);
    if (!c) {
      c = { running: 0, waiting: [] };
      this.callers.set(caller, c);
    }
    const entry = c;
    if (entry.running < this.perUser) {
      entry.running++;
      return () => this.release(caller, entry);
    }
    if (entry.waiting.length >= HEAVY_REQUESTS_WAITING_PER_USER)
      throw new TooManyConcurrentError(
        `${entry.running} of your searches, imports and exports are running and ${entry.waiting.length} wait ` +
          'for their turn; send this one again when some have finished.',
        RETRY_AFTER_SECONDS,
      );
    const admitted = await new Promise<boolean>((resolve) => {
      const wake = () => {
        ctx.res.off('close', leave);
        resolve(true);
      };
      const leave = () => {
        const at = entry.waiting.indexOf(wake);
        if (at >= 0) entry.waiting.splice(at, 1);
        resolve(false);
      };
      entry.waiting.push(wake);
      ctx.res.once('close', leave);
    });
    if (!admitted) {
      this.forget(caller, entry);
      return null;
    }
    return () => this.release(caller, entry);
  }

  /** Hands the slot to the next waiting request, or frees it. */
  private release(caller: string, entry: Caller): void {
    const next = entry.waiting.shift();
    if (next) next();
    else {
      entry.running--;
      this.forget(caller, entry);
    }
  }

  private forget(caller: string, entry: Caller): void {
    if (entry.running === 0 && entry.waiting.length === 0 && this.callers.get(caller) === entry)
      this.callers.delete(caller);
  }
}
