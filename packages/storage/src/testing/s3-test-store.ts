import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import type { S3StoreSettings } from '../s3-object-store.ts';
import { CEPH_HINT, missingCephBinaries, startCephRgw, stopWhenGone } from './ceph-rgw.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder of this test run where the one Ceph gateway of the run is started and described. */
    s3RunDir: string;
    /** The test runner's PID, whose end stops the gateway. */
    s3RunnerPid: number;
  }
}

/** Why S3 tests cannot run here, or null when they can. With CI=true this is an error instead (see s3TestSettings). */
export function s3Unavailable(): string | null {
  if (process.env.TEST_S3_ENDPOINT) return null;
  const missing = missingCephBinaries();
  if (missing.length === 0) return null;
  return `S3 tests skipped: no S3 server (${missing.join(', ')} not found); ${CEPH_HINT}.`;
}

function externalSettings(): S3StoreSettings {
  const env = process.env;
  return {
    endpoint: env.TEST_S3_ENDPOINT!,
    bucket: env.TEST_S3_BUCKET ?? 'service-test',
    region: env.TEST_S3_REGION ?? 'us-east-1',
    accessKeyId: env.TEST_S3_ACCESS_KEY_ID ?? null,
    secretAccessKey: env.TEST_S3_SECRET_ACCESS_KEY ?? null,
    sessionToken: null,
    forcePathStyle: true,
    prefix: '',
  };
}

async function waitForFile(file: string, failed: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      // not written yet
    }
    try {
      throw new Error(readFileSync(failed, 'utf8'));
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') throw err;
    }
    if (Date.now() > deadline) throw new Error(`the test run's Ceph gateway was not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let shared: Promise<S3StoreSettings> | null = null;

/** The run's gateway: the first worker that asks starts it (once per run), the others wait for its description. */
function runGateway(): Promise<S3StoreSettings> {
  const dir = inject('s3RunDir');
  const ready = path.join(dir, 'gateway.json');
  const failed = path.join(dir, 'gateway.failed');
  try {
    mkdirSync(path.join(dir, 'starting'));
  } catch {
    return waitForFile(ready, failed, 240_000).then((text) => JSON.parse(text) as S3StoreSettings);
  }
  return startCephRgw(path.join(dir, 'ceph'))
    .then((gateway) => {
      stopWhenGone(inject('s3RunnerPid'), gateway);
      writeFileSync(
        path.join(dir, 'gateway-process.json'),
        JSON.stringify({ port: gateway.port, dataDir: gateway.dataDir }),
      );
      writeFileSync(ready, JSON.stringify(gateway.settings));
      return gateway.settings;
    })
    .catch((err: unknown) => {
      writeFileSync(failed, (err as Error).message);
      throw err;
    });
}

/**
 * Settings of a real S3 server for a test file, under a prefix of its own: TEST_S3_ENDPOINT when
 * set, else the run's Ceph RADOS Gateway (started on first use, stopped when the run ends). Call
 * only when s3Unavailable() is null; with CI=true a missing gateway fails instead of skipping.
 */
export async function s3TestSettings(): Promise<S3StoreSettings> {
  const reason = s3Unavailable();
  if (reason) throw new Error(reason.replace('S3 tests skipped', 'S3 tests cannot run'));
  shared ??= process.env.TEST_S3_ENDPOINT ? Promise.resolve(externalSettings()) : runGateway();
  return { ...(await shared), prefix: `test-${randomBytes(6).toString('hex')}/` };
}

/**
 * Whether S3 tests run: skip (false) with the reason on stderr where the gateway is missing; with
 * CI=true its absence is an error, so a CI run cannot pass without them.
 */
export function s3TestsRun(): boolean {
  const reason = s3Unavailable();
  if (!reason) return true;
  if (process.env.CI === 'true')
    throw new Error(`${reason.replace('S3 tests skipped', 'S3 tests are required in CI')}`);
  process.stderr.write(`${reason}\n`);
  return false;
}
