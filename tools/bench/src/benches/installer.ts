// Installer figures (issue 13): package build time, upgrade time from the command to healthy, the
// service's unavailable time during the upgrade (measured from outside by polling /api/health),
// backup and restore of a workspace with 50,000 findings and 200 MB of evidence, and the idle
// memory (RSS) of the app run as built JavaScript. Runs the real release tool (images from the
// stand-in docker) and the real installer with the local-process runtime on PostgreSQL 15.
// BENCH_INSTALLER_FINDINGS and BENCH_INSTALLER_EVIDENCE_MB make it smaller.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { generateLicenseKeyPair, parseSigningKey, signLicense } from '@service/auth';
import { freePort } from '@service/release-kit';
import { createTestFolder, createTestSigningKey, installStandInDocker } from '@service/release-kit/testing';
import { buildRelease, DockerCli } from '@service/release-tool';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const PG_BIN = process.env.SERVICE_INSTALLER_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export default async function run(): Promise<void> {
  const findings = Number(process.env.BENCH_INSTALLER_FINDINGS ?? 50_000);
  const evidenceMb = Number(process.env.BENCH_INSTALLER_EVIDENCE_MB ?? 200);
  const folder = createTestFolder('bench-installer-');
  chmodSync(folder.dir, 0o755);
  const home = folder.path('opt-service');
  const docker = installStandInDocker(folder.path('docker'));
  const key = createTestSigningKey();
  writeFileSync(folder.path('key.pem'), key.privatePem, { mode: 0o600 });
  writeFileSync(
    folder.path('CHANGELOG.md'),
    '# Changelog\n\n## [1.3.0] - 2026-11-22\n\n- b\n\n## [1.2.0] - 2026-11-15\n\n- a\n',
  );
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    SERVICE_INSTALLER_RUNTIME: 'local-process',
    SERVICE_INSTALLER_TRUSTED_KEYS: key.publicBase64,
    SERVICE_INSTALLER_PG_BIN: PG_BIN,
    SERVICE_INSTALLER_NODE_MODULES: path.join(REPO, 'node_modules'),
    SERVICE_INSTALLER_HEALTH_GRACE: '5',
  };
  const installer = (version: string, ...args: string[]) =>
    runInstaller(folder.path('packages', `service-${version}`), [...args, '--home', home], env);
  try {
    const builds: number[] = [];
    for (const version of ['1.2.0', '1.3.0']) {
      const started = Date.now();
      const built = await buildRelease({
        repoRoot: REPO,
        version,
        outDir: folder.path('dist'),
        changelogFile: folder.path('CHANGELOG.md'),
        signKeyFile: folder.path('key.pem'),
        engine: new DockerCli({ ...process.env, PATH: docker.path }),
        out: () => {},
      });
      builds.push(Date.now() - started);
      mkdirSync(folder.path('packages'), { recursive: true });
      execFileSync('tar', ['xzf', built.tarball, '-C', folder.path('packages')]);
      console.log(
        `package build ${version}: ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
          `${(built.bytes / 1024 / 1024).toFixed(1)} MiB (stand-in images; a real build ` +
          `adds docker build and save)`,
      );
    }

    const licenseKey = generateLicenseKeyPair();
    mkdirSync(path.join(home, 'license'), { recursive: true });
    writeFileSync(
      path.join(home, 'license/bench.license'),
      signLicense(
        {
          id: '11111111-2222-4333-8444-555555555555',
          holder: 'Bench',
          edition: 'self-hosted',
          features: ['api'],
          seats: 5,
          issuedAt: '2026-01-01T00:00:00.000Z',
          expiresAt: '2099-01-01T00:00:00.000Z',
        },
        parseSigningKey(licenseKey.privateKeyPem),
      ),
    );
    const install = await installer(
      '1.2.0',
      'install',
      '--yes',
      '--set',
      `SERVICE_HTTP_PORT=${port}`,
      '--set',
      'SERVICE_ADMIN_EMAIL=owner@example.com',
      '--set',
      'SERVICE_ADMIN_PASSWORD=owner-password-1',
      '--set',
      'LICENSE_FILE=/license/bench.license',
      '--set',
      'RATE_LIMIT_PER_IP=100000',
      '--set',
      'RATE_LIMIT_PER_KEY=100000',
      '--set',
      `LICENSE_TRUSTED_KEYS=${licenseKey.publicKeyBase64}`,
    );
    if (install.code !== 0) throw new Error(`install failed: ${install.stderr}`);

    const seedStarted = Date.now();
    const apiKey = await seedWorkspace(home, port, findings, evidenceMb);
    console.log(
      `seeded ${findings} findings and ${evidenceMb} MB of evidence in ` +
        `${((Date.now() - seedStarted) / 1000).toFixed(1)} s`,
    );

    await sleep(5000);
    const pid = (JSON.parse(readFileSync(path.join(home, 'run/app.json'), 'utf8')) as { pid: number }).pid;
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
    console.log(
      `app idle RSS (built JavaScript, Node ${process.version}, after seeding and 5 s ` +
        `idle): ${(Number(rss) / 1024).toFixed(0)} MiB`,
    );

    let started = Date.now();
    const backup = await installer('1.2.0', 'backup');
    if (backup.code !== 0) throw new Error(`backup failed: ${backup.stderr}`);
    const backupFile = /Backup written: (\S+) /.exec(backup.stdout)![1]!;
    console.log(
      `backup: ${((Date.now() - started) / 1000).toFixed(1)} s, archive ` +
        `${(statSync(backupFile).size / 1024 / 1024).toFixed(0)} MiB`,
    );

    const poll = pollHealth(port, '1.3.0');
    started = Date.now();
    const upgrade = await installer('1.3.0', 'upgrade', '--yes');
    const seen = poll.stop();
    if (upgrade.code !== 0) throw new Error(`upgrade failed: ${upgrade.stderr}`);
    const reported = /the service was unavailable for ([\d.]+) s/.exec(upgrade.stdout)!;
    console.log(
      `upgrade 1.2.0 -> 1.3.0: ` +
        `${seen.newVersionAt ? ((seen.newVersionAt - started) / 1000).toFixed(1) : '?'} s ` +
        `from the command to 1.3.0 answering healthy; ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s until the command ended (it ` +
        `watches a 5 s grace period)`,
    );
    console.log(
      `  service unavailable: ${(seen.outageMs / 1000).toFixed(1)} s seen from outside ` +
        `(longest run of failed /api/health polls, every 100 ms); ${reported[1]} s by the ` +
        `installer's own clock`,
    );

    started = Date.now();
    const restore = await installer('1.2.0', 'restore', backupFile, '--yes');
    if (restore.code !== 0) throw new Error(`restore failed: ${restore.stderr}`);
    console.log(
      `restore: ${((Date.now() - started) / 1000).toFixed(1)} s (verify, ${findings} ` +
        `findings into new databases, swap, start, 5 s grace)`,
    );
    const check = await fetch(`http://127.0.0.1:${port}/rest/v1/findings?per_page=1`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    console.log(`after restore: /rest/v1/findings reports X-Total-Count ${check.headers.get('x-total-count')}`);
    console.log(`figures: build ${builds.map((b) => (b / 1000).toFixed(1)).join(' / ')} s`);
  } finally {
    stopInstallation(home);
    folder.remove();
  }
}

/**
 * A client, project and report over REST, `findings` findings by SQL, and `evidenceMb` 1 MB evidence images over REST.
 */
async function seedWorkspace(home: string, port: number, findings: number, evidenceMb: number): Promise<string> {
  const base = `http://127.0.0.1:${port}`;
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
    body: JSON.stringify({ email: 'owner@example.com', password: 'owner-password-1' }),
  });
  const session = {
    cookie: login.headers.get('set-cookie')!.split(';')[0]!,
    'x-requested-with': 'XMLHttpRequest',
    'content-type': 'application/json',
  };
  const makeKey = async (clientIds: string[]) =>
    (
      (await (
        await fetch(`${base}/api/profile/api-keys`, {
          method: 'POST',
          headers: session,
          body: JSON.stringify({ name: 'bench', scope: 'read-write', clientIds }),
        })
      ).json()) as { key: string }
    ).key;
  let key = await makeKey([]);
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${base}/rest/v1${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`POST ${p} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const client = await post('/clients', { name: 'Bench client' });
  key = await makeKey([client.id]);
  const project = await post('/projects', { clientId: client.id, name: 'Bench project' });
  const report = await post('/reports', { projectId: project.id, title: 'Bench report' });
  const finding = await post('/findings', { reportId: report.id, title: 'Evidence holder', severity: 'high' });

  const password = /^POSTGRES_PASSWORD=(\S+)$/m.exec(readFileSync(path.join(home, '.env'), 'utf8'))![1]!;
  const pgPort = readFileSync(path.join(home, 'run/postgres.port'), 'utf8').trim();
  const db = new pg.Client({
    connectionString: `postgres://service:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/service_tenant`,
  });
  await db.connect();
  try {
    await db.query(
      `create temporary table seed as select gen_random_uuid() as fid, g from generate_series(1, $1::int) g`,
      [findings - 1],
    );
    await db.query(
      `insert into findings (id, project_id, title, severity, description, remediation, created_at, updated_at)
       select fid, $1, 'Seeded finding #' || g, (array['critical','high','medium','low','info'])[1 + (g % 5)],
              'The application is affected by issue ' || g || '. ' || repeat('Details of the finding. ', 10), 'Fix it.', now(), now() from seed`,
      [project.id],
    );
    await db.query(`insert into report_findings (report_id, finding_id, position) select $1, fid, g + 1 from seed`, [
      report.id,
    ]);
  } finally {
    await db.end();
  }
  for (let i = 0; i < evidenceMb; i++) {
    const form = new FormData();
    form.set('findingId', finding.id);
    form.set('file', new Blob([noisePng()]), `evidence-${i}.png`);
    const res = await fetch(`${base}/rest/v1/evidence-images`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    if (res.status !== 201) throw new Error(`evidence upload answered ${res.status}: ${await res.text()}`);
  }
  return key;
}

/** A valid 512x512 RGBA PNG of noise, about 1 MB (stored, not compressed, like a photo would hardly compress). */
function noisePng(): Buffer {
  const width = 512;
  const height = 512;
  const raw = randomBytes((width * 4 + 1) * height);
  // Each scanline starts with its filter type: 0 (none).
  for (let row = 0; row < height; row++) raw[row * (width * 4 + 1)] = 0;
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8);
  header.writeUInt8(6, 9);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 0 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Polls /api/health every 100 ms; stop() returns the longest stretch without a 200, and when `version` first answered.
 */
function pollHealth(port: number, version: string): { stop(): { outageMs: number; newVersionAt: number | null } } {
  let longest = 0;
  let downSince: number | null = null;
  let running = true;
  let newVersionAt: number | null = null;
  void (async () => {
    while (running) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.status === 200,
        () => false,
      );
      const now = Date.now();
      if (ok && newVersionAt === null) {
        const answered = await fetch(`http://127.0.0.1:${port}/api/version`).then(
          (r) => r.json() as Promise<{ version: string }>,
          () => ({ version: '' }),
        );
        if (answered.version === version) newVersionAt = now;
      }
      if (!ok && downSince === null) downSince = now;
      if (ok && downSince !== null) {
        longest = Math.max(longest, now - downSince);
        downSince = null;
      }
      await sleep(100);
    }
  })();
  return {
    stop() {
      running = false;
      if (downSince !== null) longest = Math.max(longest, Date.now() - downSince);
      return { outageMs: longest, newVersionAt };
    },
  };
}

function runInstaller(
  packageDir: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      'sh',
      [path.join(packageDir, 'install.sh'), ...args],
      { cwd: packageDir, env, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code as number) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** Stops what the local-process runtime started: the app (by its recorded pid) and the PostgreSQL cluster. */
function stopInstallation(home: string): void {
  try {
    const { pid } = JSON.parse(readFileSync(path.join(home, 'run/app.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGTERM');
  } catch {
    // not running
  }
  const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  try {
    execFileSync(
      asPostgres[0] ?? path.join(PG_BIN, 'pg_ctl'),
      [
        ...asPostgres.slice(1),
        ...(asPostgres.length ? [path.join(PG_BIN, 'pg_ctl')] : []),
        '-D',
        path.join(home, 'data/postgres'),
        '-m',
        'fast',
        '-w',
        'stop',
      ],
      { stdio: 'ignore' },
    );
  } catch {
    // not running
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
