// `npm start` as users run it (issue "Built JavaScript at run time"): the bundled service in its
// own process, with an embedded PostgreSQL in a temporary data directory. Figures:
//  1. the bundle build (forced), and the check that finds it fresh;
//  2. start to healthy (GET /api/health 200) on a new data directory, then on the warm one
//     (median of three). Target: warm under 3 s;
//  3. idle RSS of the service process (PostgreSQL not counted), 20 s after healthy.
//     Target: at most 140 MB;
//  4. a 50,000-finding Markdown import through the API: its time, the process's peak RSS while it
//     runs, RSS right after, and RSS a minute later. Target: back within 100 MB of idle.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportReportMarkdown } from '@service/markdown';
import {
  emptyDocumentFinding,
  emptyReportDocument,
  type ReportDocument,
  type ReportDocumentFinding,
} from '@service/report-model';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const START = path.join(REPO, 'apps/api/scripts/start.mjs');
const EMAIL = 'bench@example.com';
const PASSWORD = 'bench-password-123';
const FINDINGS = Number(process.env.BENCH_IMPORT_FINDINGS ?? 50_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process, in MB (its own pages; children such as PostgreSQL not counted). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

interface Running {
  child: ChildProcess;
  url: string;
  ms: number;
  stop(): Promise<void>;
}

async function start(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [START], {
    cwd: REPO,
    env: {
      ...process.env,
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      SERVICE_ADMIN_EMAIL: EMAIL,
      SERVICE_ADMIN_PASSWORD: PASSWORD,
      RATE_LIMIT_PER_KEY: '10000000',
      RATE_LIMIT_PER_IP: '10000000',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/api/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await sleep(20);
  }
  const ms = performance.now() - started;
  return {
    child,
    url,
    ms,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A report of `n` short findings (one paragraph, one asset each), as the export writes it. */
function bigMarkdown(n: number): string {
  const findings: ReportDocumentFinding[] = Array.from({ length: n }, (_, i) => ({
    ...emptyDocumentFinding(
      `Finding ${i + 1}: outdated TLS configuration on host ${i}`,
      (['critical', 'high', 'medium', 'low', 'info'] as const)[i % 5]!,
    ),
    cves: i % 5 === 0 ? [`CVE-2023-${10000 + i}`] : [],
    cwes: [326],
    description:
      `The service at **host-${i}.example** accepts TLS 1.0 and ciphers without forward secrecy ` +
      `(observation ${i}); an attacker on the path can downgrade the connection.`,
    impact: 'Traffic may be read by an attacker on the network path.',
    remediation: 'Allow TLS 1.2 and later with AEAD ciphers only.',
    references: ['https://ciphersuite.info/'],
    affectedAssets: [{ host: `host-${i}.example`, port: 443, protocol: 'tcp', service: 'https' }],
  }));
  const doc: ReportDocument = {
    ...emptyReportDocument('Large import', 'Bench Corp', 'Bench'),
    summary: 'Many findings.',
    findings,
  };
  return exportReportMarkdown(doc);
}

async function apiKey(url: string): Promise<string> {
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'fetch' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`sign-in answered ${login.status}`);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const created = await fetch(`${url}/api/profile/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'fetch', cookie },
    body: JSON.stringify({ name: 'bench', scope: 'read-write' }),
  });
  if (created.status !== 201) throw new Error(`creating a key answered ${created.status}`);
  return ((await created.json()) as { key: string }).key;
}

export default async function run(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'service-start-bench-'));
  try {
    console.log('1. Bundle (start.mjs prints the build time)');
    rmSync(path.join(REPO, 'dist/service'), { recursive: true, force: true });
    const first = await start(dataDir);
    console.log(`start with a forced build, new data directory: healthy in ${first.ms.toFixed(0)} ms`);
    await first.stop();

    console.log('\n2. Start to healthy on the warm data directory (bundle fresh)');
    const warm: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await start(dataDir);
      warm.push(s.ms);
      await s.stop();
    }
    warm.sort((a, b) => a - b);
    console.log(`warm starts: ${warm.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}; median ${warm[1]!.toFixed(0)} ms`);

    const svc = await start(dataDir);
    try {
      await sleep(20_000);
      const early = rssMb(svc.child.pid!);
      await sleep(40_000);
      const idle = rssMb(svc.child.pid!);
      console.log(
        `\n3. Idle RSS: ${early.toFixed(0)} MB 20 s after healthy, ${idle.toFixed(0)} MB after a minute ` +
          '(target at most 140 MB)',
      );

      console.log(`\n4. Markdown import of ${FINDINGS.toLocaleString('en')} findings`);
      const key = await apiKey(svc.url);
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const client = await fetch(`${svc.url}/rest/v1/clients`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ name: 'Bench Corp' }),
      }).then((r) => r.json() as Promise<{ id: string }>);
      const project = await fetch(`${svc.url}/rest/v1/projects`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ clientId: client.id, name: 'Bench' }),
      }).then((r) => r.json() as Promise<{ id: string }>);
      const markdown = bigMarkdown(FINDINGS);
      console.log(`file: ${(Buffer.byteLength(markdown) / 1048576).toFixed(1)} MB`);
      let peak = idle;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMb(svc.child.pid!));
      }, 100);
      // Another client's requests while the import runs: how long the event loop keeps them waiting.
      let importing = true;
      const pings = (async () => {
        const times: number[] = [];
        while (importing) {
          const p = performance.now();
          await fetch(`${svc.url}/api/version`).then((r) => r.text());
          times.push(performance.now() - p);
          await sleep(50);
        }
        return times;
      })();
      const t = performance.now();
      const form = new FormData();
      form.set('projectId', project.id);
      form.set('file', new Blob([markdown], { type: 'text/markdown' }), 'report.md');
      const res = await fetch(`${svc.url}/rest/v1/reports/import-markdown`, {
        method: 'POST',
        headers: { authorization: auth.authorization },
        body: form,
      });
      const body = (await res.json()) as { findings?: number; error?: { message: string } };
      const importMs = performance.now() - t;
      clearInterval(sampler);
      importing = false;
      const versions = await pings;
      const after = rssMb(svc.child.pid!);
      console.log(
        `import: ${res.status}, ${body.findings ?? body.error?.message} findings in ${(importMs / 1000).toFixed(1)} s; ` +
          `peak RSS ${peak.toFixed(0)} MB, right after ${after.toFixed(0)} MB`,
      );
      versions.sort((a, b) => a - b);
      console.log(
        `GET /api/version during the import: ${versions.length} requests, median ` +
          `${versions[Math.floor(versions.length / 2)]!.toFixed(0)} ms, worst ${versions.at(-1)!.toFixed(0)} ms`,
      );
      const samples: string[] = [];
      for (const s of [15, 30, 45, 60]) {
        await sleep(15_000);
        samples.push(`${s} s: ${rssMb(svc.child.pid!).toFixed(0)} MB`);
      }
      const minute = rssMb(svc.child.pid!);
      console.log(`RSS after the import: ${samples.join(', ')}`);
      console.log(
        `a minute after: ${minute.toFixed(0)} MB, ${(minute - idle).toFixed(0)} MB above idle (target within 100 MB)`,
      );
    } finally {
      await svc.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
