import type { CheckResult } from '../checks/preflight-check.ts';
import type { Reporter } from '../ui/reporter.ts';

const MARK = { pass: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const;

/** The pre-flight checks as a list, one line each, with the hint under a failure. */
export function printChecks(reporter: Reporter, checks: readonly CheckResult[]): void {
  reporter.info('Checks:');
  for (const c of checks) {
    reporter.info(`  [${MARK[c.status]}] ${c.title}: ${c.detail}`);
    if (c.status === 'fail' && c.hint) reporter.info(`         ${c.hint}`);
  }
}
