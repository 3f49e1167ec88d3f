import type { PreflightCheck } from './preflight-check.ts';

export const containerEngineCheck: PreflightCheck = {
  id: 'container-engine',
  title: 'container engine',
  appliesTo: ['status', 'install', 'upgrade', 'backup', 'restore', 'import-globals'],
  run({ engine }) {
    return engine.ok
      ? { status: 'pass', detail: engine.detail }
      : { status: 'fail', detail: engine.detail, hint: 'Install Docker Engine with the compose plugin and start it.' };
  },
};
