import type { Reporter } from './reporter.ts';

/**
 * Runs `work` with Ctrl-C (SIGINT) and SIGTERM held back: an upgrade or restore cut off between
 * moving files and starting the service would leave the installation half changed, while the
 * installer itself finishes or rolls back in bounded time. The operator is told so once.
 */
export async function holdInterrupts<T>(reporter: Reporter, what: string, work: () => Promise<T>): Promise<T> {
  let told = false;
  const hold = (signal: NodeJS.Signals) => {
    reporter.log(`received ${signal} during ${what}; held back`);
    if (told) return;
    told = true;
    reporter.warn(
      `${what} is changing the installation; it is not interrupted now (it finishes, or ` +
        `puts the previous state back, by itself).`,
    );
  };
  process.on('SIGINT', hold);
  process.on('SIGTERM', hold);
  try {
    return await work();
  } finally {
    process.off('SIGINT', hold);
    process.off('SIGTERM', hold);
  }
}
