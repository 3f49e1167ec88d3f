import { OperatorError } from '@service/cli-kit';
import type { Reporter } from './reporter.ts';

/** The signals that end a run from outside: Ctrl-C, `kill`, and a dropped terminal or SSH session. */
export const HELD_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface InterruptHold {
  /** The first signal received, or null. */
  readonly received: NodeJS.Signals | null;
  /**
   * A point where stopping is still safe (nothing changed yet): throws when a signal came, so
   * the run ends there, cleanly and with its result line.
   */
  checkpoint(): void;
  /** From here on the installation is being changed: signals are noted, never acted on. */
  changing(): void;
}

/**
 * Runs `work` with SIGINT, SIGTERM and SIGHUP held: an upgrade or restore cut off between moving
 * files and starting the service would leave the installation half changed. Before anything
 * changes, a signal stops the run at the next checkpoint; afterwards the run finishes or puts the
 * previous state back by itself, then prints its one result line. The operator is told once.
 * (Children run in process groups of their own, so a Ctrl-C never reaches them either.)
 */
export async function holdInterrupts<T>(
  reporter: Reporter,
  what: string,
  work: (hold: InterruptHold) => Promise<T>,
): Promise<T> {
  let received: NodeJS.Signals | null = null;
  let changing = false;
  let told = false;
  const onSignal = (signal: NodeJS.Signals) => {
    reporter.log(`received ${signal} during ${what}; held back`);
    received ??= signal;
    if (told) return;
    told = true;
    reporter.warn(
      changing
        ? `${signal}: ${what} is changing the installation; it is not interrupted now (it finishes, ` +
            `or puts the previous state back, by itself, then says so).`
        : `${signal}: ${what} stops at the next safe point, before anything is changed.`,
    );
  };
  for (const signal of HELD_SIGNALS) process.on(signal, onSignal);
  const hold: InterruptHold = {
    get received() {
      return received;
    },
    checkpoint() {
      if (received !== null && !changing) throw new StoppedBySignal(what, received);
    },
    changing() {
      changing = true;
    },
  };
  try {
    return await work(hold);
  } finally {
    for (const signal of HELD_SIGNALS) process.off(signal, onSignal);
  }
}

/** A run stopped by a signal at a checkpoint, before it changed anything. */
export class StoppedBySignal extends OperatorError {
  constructor(what: string, signal: NodeJS.Signals) {
    super(`${what} was stopped by ${signal} before anything was changed`, {
      hint: 'Run the command again when you are ready.',
    });
  }
}
