import type { ReporterOutput } from './reporter.ts';

/**
 * The screen as a reporter output that survives losing it: when the terminal or SSH session
 * goes away, writing fails (EPIPE, EIO); the run must go on (the log file has everything), so the
 * first failure turns the screen off instead of ending the process in the middle of a change.
 */
export function terminalOutput(stream: NodeJS.WriteStream): ReporterOutput {
  let gone = false;
  stream.on('error', () => {
    gone = true;
  });
  return {
    isTTY: stream.isTTY === true,
    write(text) {
      if (gone || stream.destroyed) return;
      try {
        stream.write(text);
      } catch {
        gone = true;
      }
    },
  };
}
