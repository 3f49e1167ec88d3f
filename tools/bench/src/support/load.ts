import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const AUTOCANNON = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../node_modules/.bin/autocannon',
);

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Drives a URL from a separate process (autocannon), so the load generator does not share the server's event loop. */
export async function load(
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string> },
): Promise<LoadResult> {
  const args = ['-c', String(options.connections), '-d', String(options.seconds), '-j'];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(url);
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(AUTOCANNON, args, { maxBuffer: 64 * 1024 * 1024 }, (err, out) => (err ? reject(err) : resolve(out))),
  );
  const r = JSON.parse(stdout);
  return {
    requestsPerSecond: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
  };
}

export function formatLoad(label: string, r: LoadResult): string {
  return (
    `${label.padEnd(44)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ` +
    `${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ` +
    `ms${r.errors || r.non2xx ? `   (${r.errors} errors, ${r.non2xx} non-2xx)` : ''}`
  );
}

/** Requests one at a time, timed from the client: latency without queueing. */
export async function sequential(
  url: string,
  headers: Record<string, string>,
  n: number,
): Promise<{ p50: number; p99: number; mean: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return {
    p50: times[Math.floor(n * 0.5)]!,
    p99: times[Math.floor(n * 0.99)]!,
    mean: times.reduce((a, b) => a + b, 0) / n,
  };
}
