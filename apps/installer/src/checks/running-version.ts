import type { PreflightCheck } from './preflight-check.ts';

/** The running service reports the version .env names (an earlier failed run may have left them apart). */
export const runningVersionCheck: PreflightCheck = {
  id: 'running-version',
  title: 'running version',
  appliesTo: ['status', 'upgrade', 'backup'],
  run({ command, installation }) {
    const installed = installation.env?.values.get('SERVICE_VERSION') ?? null;
    const running = installation.runningVersion;
    if (running === null)
      return {
        status: command === 'status' ? 'warn' : 'pass',
        detail: 'the service does not answer /api/version (stopped?)',
      };
    if (installed !== null && running !== installed) {
      return {
        status: command === 'status' ? 'warn' : 'fail',
        detail: `the service runs ${running}, but .env says SERVICE_VERSION=${installed}`,
        hint:
          'An earlier installer run did not finish; read its log in logs/, then restore the ' +
          'backup taken before it.',
      };
    }
    return { status: 'pass', detail: `the service answers ${running}` };
  },
};
