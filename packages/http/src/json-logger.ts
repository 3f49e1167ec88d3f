export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface JsonLogger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/**
 * One JSON object per line. Callers pass fields; nothing here reads requests, so nothing secret is logged by accident.
 */
export function createJsonLogger(
  level: LogLevel,
  write: (line: string) => void = (l) => process.stdout.write(l),
): JsonLogger {
  const threshold = RANK[level];
  const log =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (event: string, fields: Record<string, unknown> = {}) => {
      if (RANK[lvl] < threshold) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, event, ...fields })}\n`);
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
