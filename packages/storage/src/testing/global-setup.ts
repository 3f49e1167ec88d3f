// Vitest global setup: a folder for the run's Ceph gateway, which the first S3 test starts
// (s3-test-store.ts) and this teardown stops.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopCephRgw } from './ceph-rgw.ts';

let dir: string | null = null;

export function setup(project: TestProject): void {
  dir = mkdtempSync(path.join(tmpdir(), 'service-test-s3-'));
  project.provide('s3RunDir', dir);
  project.provide('s3RunnerPid', process.pid);
}

export async function teardown(): Promise<void> {
  if (!dir) return;
  try {
    await stopCephRgw(JSON.parse(readFileSync(path.join(dir, 'gateway-process.json'), 'utf8')));
  } catch {
    // no gateway was started
  }
  rmSync(dir, { recursive: true, force: true });
}
