import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { S3StoreSettings } from '../s3-object-store.ts';

const SCRIPTS = path.join(import.meta.dirname, 'ceph-rgw');
/** The Debian packages the gateway needs. */
export const CEPH_PACKAGES = ['ceph-mon', 'ceph-osd', 'radosgw'] as const;
const BINARIES = ['ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph', 'monmaptool', 'ceph-authtool'];

/** How to get the gateway, for skip messages and errors. */
export const CEPH_HINT =
  `install Debian's ${CEPH_PACKAGES.join(', ')} and uuid-runtime (\`apt-get install -y --no-install-recommends ` +
  `${CEPH_PACKAGES.join(' ')} uuid-runtime curl\`, which .ci/run does), or point TEST_S3_ENDPOINT, TEST_S3_BUCKET, ` +
  'TEST_S3_ACCESS_KEY_ID and TEST_S3_SECRET_ACCESS_KEY at an S3 server';

/** The gateway's programs on PATH, or the ones missing. */
export function missingCephBinaries(): string[] {
  const dirs = (process.env.PATH ?? '').split(':').filter(Boolean);
  return BINARIES.filter((b) => !dirs.some((d) => existsSync(path.join(d, b))));
}

/** A free TCP port on 127.0.0.1 with `span` ports after it free too (the gateway uses a block of 50). */
async function freePortBlock(span: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    let ok = true;
    for (const offset of [0, 10, ...Array.from({ length: span - 20 }, (_, i) => 20 + i)])
      if (!(await free(base + offset))) {
        ok = false;
        break;
      }
    if (ok) return base;
  }
  throw new Error('no free block of ports on 127.0.0.1 for the Ceph gateway');
}

export interface RunningGateway {
  settings: S3StoreSettings;
  port: number;
  dataDir: string;
}

/** Starts a one-host Ceph cluster with the gateway under `dataDir` (about 20 s); the bucket `bucket` exists after. */
export async function startCephRgw(dataDir: string, bucket = 'service-test'): Promise<RunningGateway> {
  const port = await freePortBlock(50);
  const env = {
    ...process.env,
    S3_PORT: String(port),
    S3_DATA_DIR: dataDir,
    S3_BUCKET: bucket,
    S3_SKIP_INSTALL: '1',
  };
  const out = await new Promise<string>((resolve, reject) => {
    execFile('bash', [path.join(SCRIPTS, 'start-ceph-rgw.sh')], { env, maxBuffer: 1 << 20 }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`the Ceph gateway did not start: ${stderr.trim().split('\n').slice(-5).join(' | ')}`))
        : resolve(stdout),
    );
  });
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(out)?.[1] ?? '';
  return {
    port,
    dataDir,
    settings: {
      endpoint: value('S3_ENDPOINT'),
      bucket: value('S3_BUCKET'),
      region: value('S3_REGION'),
      accessKeyId: value('S3_ACCESS_KEY_ID'),
      secretAccessKey: value('S3_SECRET_ACCESS_KEY'),
      sessionToken: null,
      forcePathStyle: true,
      prefix: '',
    },
  };
}

/** Stops the daemons of a gateway started by startCephRgw, by their recorded PIDs, and removes its data. */
export function stopCephRgw(gateway: { port: number; dataDir: string }): Promise<void> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [path.join(SCRIPTS, 'stop-ceph-rgw.sh')],
      { env: { ...process.env, S3_PORT: String(gateway.port), S3_DATA_DIR: gateway.dataDir } },
      () => resolve(),
    );
  });
}

/**
 * Stops the gateway when process `pid` (the test runner) is gone, even when it was killed before
 * its teardown ran: a detached shell that outlives it.
 */
export function stopWhenGone(pid: number, gateway: { port: number; dataDir: string }): void {
  const child = spawn(
    'bash',
    [
      '-c',
      `while kill -0 ${pid} 2>/dev/null; do sleep 2; done; ` +
        `S3_PORT=${gateway.port} S3_DATA_DIR='${gateway.dataDir}' bash '${path.join(SCRIPTS, 'stop-ceph-rgw.sh')}'`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  child.unref();
}

/** S3 settings as the environment of a service started with FILES_STORE=s3. */
export function s3Env(settings: S3StoreSettings): Record<string, string> {
  return {
    FILES_STORE: 's3',
    S3_ENDPOINT: settings.endpoint ?? '',
    S3_BUCKET: settings.bucket,
    S3_REGION: settings.region ?? 'us-east-1',
    S3_ACCESS_KEY_ID: settings.accessKeyId ?? '',
    S3_SECRET_ACCESS_KEY: settings.secretAccessKey ?? '',
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: settings.prefix,
  };
}
