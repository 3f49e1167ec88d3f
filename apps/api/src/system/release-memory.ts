import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives memory back to the system after a burst of work (the start, a large import). Why: V8 runs
 * a full collection only when the program allocates, so a process that goes idle after holding a
 * 30 MB file and its 50,000 findings kept the garbage, and its RSS, for as long as it stayed idle
 * (630 MB an hour later). One full collection a few seconds after the last burst frees it.
 */

let collect: (() => void) | null | undefined;

/** V8's full collection: `gc` when node runs with --expose-gc, else exposed for a new context. */
function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') collect = exposed;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  } catch {
    collect = null;
  }
  return collect;
}

let timer: NodeJS.Timeout | null = null;

/** One full collection `delayMs` after the last call (so a series of imports collects once, at its end). */
export function releaseMemorySoon(delayMs = 3_000): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = null;
    collector()?.();
  }, delayMs);
  timer.unref();
}
