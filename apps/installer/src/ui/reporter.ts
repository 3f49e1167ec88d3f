import cliProgress from 'cli-progress';
import type { LogFile } from './log-file.ts';
import { redact } from './redact.ts';
import { formatBytes } from './human-units.ts';

export interface Step {
  done(detail?: string): void;
  fail(detail?: string): void;
  skip(detail?: string): void;
}

export interface ProgressBar {
  update(done: number, total?: number): void;
  stop(): void;
}

/**
 * What a command shows and logs: a step list, progress bars for long transfers (image loads,
 * dumps), plain lines, and one result line at the end. Everything shown is also in the log file;
 * `log` goes to the log file only (commands run, their output).
 */
export interface Reporter {
  step(title: string): Step;
  info(line: string): void;
  warn(line: string): void;
  log(line: string): void;
  bar(title: string, total: number, unit: 'bytes' | 'files'): ProgressBar;
  result(line: string): void;
}

export interface ReporterOutput {
  write(text: string): void;
  isTTY: boolean;
}

/** On a terminal: symbols and live bars. Otherwise (a pipe, a CI log): plain lines, a bar line per 25%. */
export function createReporter(output: ReporterOutput, log: LogFile): Reporter {
  const tty = output.isTTY;
  const show = (line: string) => {
    output.write(`${redact(line)}\n`);
    log.write(line);
  };
  return {
    step(title) {
      const started = Date.now();
      show(`${tty ? '→' : '-'} ${title}`);
      const end = (mark: string, plain: string, detail?: string) => {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        show(`${tty ? mark : plain} ${title}${detail ? `: ${detail}` : ''} (${seconds} s)`);
      };
      return {
        done: (detail) => end('✓', 'ok', detail),
        fail: (detail) => end('✗', 'FAILED', detail),
        skip: (detail) => end('·', 'skipped', detail),
      };
    },
    info: (line) => show(`  ${line}`),
    warn: (line) => show(`${tty ? '!' : 'WARNING:'} ${line}`),
    log: (line) => log.write(line),
    bar(title, total, unit) {
      log.write(`${title}: 0 of ${format(total, unit)}`);
      if (tty) {
        const bar = new cliProgress.SingleBar(
          {
            format: `  ${title} [{bar}] {percentage}% {value}/{total}`,
            hideCursor: true,
            clearOnComplete: false,
            formatValue: (v: number, _o: unknown, type: string) =>
              type === 'value' || type === 'total' ? format(v, unit) : String(v),
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(Math.max(total, 1), 0);
        return {
          update: (done, newTotal) => {
            if (newTotal !== undefined) bar.setTotal(Math.max(newTotal, 1));
            bar.update(done);
          },
          stop: () => {
            bar.stop();
            log.write(`${title}: done`);
          },
        };
      }
      let shown = 0;
      let current = total;
      return {
        update: (done, newTotal) => {
          if (newTotal !== undefined) current = newTotal;
          const quarter = current > 0 ? Math.floor((done / current) * 4) : 0;
          if (quarter > shown && quarter < 4) {
            shown = quarter;
            show(`  ${title}: ${quarter * 25}% (${format(done, unit)} of ${format(current, unit)})`);
          }
        },
        stop: () => show(`  ${title}: 100%`),
      };
    },
    result: (line) => show(line),
  };
}

function format(value: number, unit: 'bytes' | 'files'): string {
  if (unit === 'files') return String(value);
  return formatBytes(value);
}
