// End to end on this machine (INSTALLER.md "How it is tested", 3): real packages built by
// tools/release (images from the stand-in docker), installed and upgraded by the real installer
// (install.sh, built JavaScript) with the local-process runtime: the built app as a local process
// on a throwaway PostgreSQL 15 cluster in the installation directory.
import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLicenseKeyPair, parseSigningKey, signLicense } from '@service/auth';
import { buildRelease, DockerCli } from '@service/release-tool';
import { freePort, MANIFEST_FILE, SUMS_FILE, signReleaseFile } from '@service/release-kit';
import {
  createTestFolder,
  createTestSigningKey,
  installStandInDocker,
  type StandInDocker,
  type TestFolder,
} from '@service/release-kit/testing';
import { LocalProcessRuntime } from '../src/runtime/local-process-runtime.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PG_BIN = process.env.SERVICE_INSTALLER_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const CHANGELOG = [
  '# Changelog',
  '## [1.4.0] - 2026-11-20',
  '### Changed',
  '- A release whose app cannot start (made so by the test).',
  '## [1.3.0] - 2026-11-18',
  '### Added',
  '- Signed offline packages.',
  '## [1.2.0] - 2026-11-15',
  '### Added',
  '- First release.',
  '',
].join('\n\n');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('install, back up, upgrade and restore on this machine', () => {
  let folder: TestFolder;
  let docker: StandInDocker;
  let home: string;
  let port: number;
  let env: NodeJS.ProcessEnv;
  let apiKey: string;
  const ids: Record<string, string> = {};
  const pkg = (name: string) => folder.path('packages', name);

  /** ./install.sh as an operator runs it, from a package folder, with nothing on stdin. */
  function installer(packageDir: string, ...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      const child = execFile(
        'sh',
        [path.join(packageDir, 'install.sh'), ...args, '--home', home],
        { cwd: packageDir, env, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
  }

  async function rest(
    method: string,
    pathname: string,
    body?: unknown,
    key = apiKey,
  ): Promise<{ status: number; body: any }> {
    const response = await fetch(`http://127.0.0.1:${port}/rest/v1${pathname}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body instanceof FormData || body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
    };
  }

  async function service(): Promise<{ health: number; version: string }> {
    const health = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.status,
      () => 0,
    );
    const version = await fetch(`http://127.0.0.1:${port}/api/version`).then(
      (r) => r.json() as Promise<{ version: string }>,
      () => ({ version: 'none' }),
    );
    return { health, version: version.version };
  }

  /** The workspace written before the first backup, read back through the REST API. */
  async function expectOriginalData(): Promise<void> {
    const finding = await rest('GET', `/findings/${ids.finding}`);
    expect(finding.status).toBe(200);
    expect(finding.body).toMatchObject({ title: 'SQL injection in login', severity: 'high', reportIds: [ids.report] });
    const client = await rest('GET', `/clients/${ids.client}`);
    expect(client.body.name).toBe('Acme Corp');
    const evidence = await fetch(`http://127.0.0.1:${port}/rest/v1/evidence-images/${ids.evidence}/content`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(evidence.status).toBe(200);
    expect(Buffer.from(await evidence.arrayBuffer()).equals(PNG)).toBe(true);
  }

  beforeAll(async () => {
    if (!existsSync(path.join(PG_BIN, 'initdb')))
      throw new Error(
        `PostgreSQL's programs are not in ${PG_BIN}; install postgresql (15 or newer) or set SERVICE_INSTALLER_PG_BIN`,
      );
    folder = createTestFolder('installer-e2e-');
    // Why: PostgreSQL runs as the unprivileged postgres user when the test runs as root, and must reach its folder.
    chmodSync(folder.dir, 0o755);
    docker = installStandInDocker(folder.path('docker'));
    home = folder.path('opt-service');
    port = await freePort();
    writeFileSync(folder.path('CHANGELOG.md'), CHANGELOG);
    const vendor = createTestSigningKey();
    writeFileSync(folder.path('vendor.pem'), vendor.privatePem, { mode: 0o600 });

    // Two real packages with the release tool's command line, as a release engineer builds them.
    for (const version of ['1.2.0', '1.3.0']) {
      execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'tools/release/src/main.ts',
          version,
          '--sign-key',
          folder.path('vendor.pem'),
          '--changelog',
          folder.path('CHANGELOG.md'),
          '--out',
          folder.path('dist'),
        ],
        {
          cwd: REPO,
          env: { ...process.env, PATH: docker.path },
          stdio: 'pipe',
        },
      );
    }
    // A release whose app crashes at start, through the tool's seam for changing the app's build context.
    await buildRelease({
      repoRoot: REPO,
      version: '1.4.0',
      outDir: folder.path('dist'),
      changelogFile: folder.path('CHANGELOG.md'),
      signKeyFile: folder.path('vendor.pem'),
      engine: new DockerCli({ ...process.env, PATH: docker.path }),
      out: () => {},
      beforeAppImage: async (context) =>
        writeFileSync(
          path.join(context, 'app/apps/api/src/main.js'),
          "process.stderr.write('cannot start: broken on purpose\\n'); process.exit(3);\n",
        ),
    });
    mkdirSync(folder.path('packages'));
    for (const version of ['1.2.0', '1.3.0', '1.4.0']) {
      expect(
        execFileSync('sha256sum', ['-c', `service-${version}-offline.tar.gz.sha256`], {
          cwd: folder.path('dist'),
        }).toString(),
      ).toContain('OK');
      execFileSync('tar', [
        'xzf',
        folder.path('dist', `service-${version}-offline.tar.gz`),
        '-C',
        folder.path('packages'),
      ]);
    }

    // A licence with the API feature, signed by a test licence key the installation trusts.
    const licenseKey = generateLicenseKeyPair();
    mkdirSync(path.join(home, 'license'), { recursive: true });
    writeFileSync(
      path.join(home, 'license/test.license'),
      signLicense(
        {
          id: '11111111-2222-4333-8444-555555555555',
          holder: 'Test Ltd',
          edition: 'self-hosted',
          features: ['api'],
          seats: 5,
          issuedAt: '2026-01-01T00:00:00.000Z',
          expiresAt: '2099-01-01T00:00:00.000Z',
        },
        parseSigningKey(licenseKey.privateKeyPem),
      ),
    );

    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SERVICE_INSTALLER_RUNTIME: 'local-process',
      SERVICE_INSTALLER_TRUSTED_KEYS: vendor.publicBase64,
      SERVICE_INSTALLER_PG_BIN: PG_BIN,
      SERVICE_INSTALLER_NODE_MODULES: path.join(REPO, 'node_modules'),
      SERVICE_INSTALLER_HEALTH_TIMEOUT: '90',
      SERVICE_INSTALLER_HEALTH_GRACE: '2',
    };
    const installed = await installer(
      pkg('service-1.2.0'),
      'install',
      '--yes',
      '--set',
      `SERVICE_HTTP_PORT=${port}`,
      '--set',
      'SERVICE_HOSTNAME=localhost',
      '--set',
      'SERVICE_ADMIN_EMAIL=owner@example.com',
      '--set',
      'SERVICE_ADMIN_PASSWORD=owner-password-1',
      '--set',
      'LICENSE_FILE=/license/test.license',
      '--set',
      `LICENSE_TRUSTED_KEYS=${licenseKey.publicKeyBase64}`,
    );
    // Why the app's log in the message: an install that fails here is otherwise a mystery once the folder is gone.
    expect(installed.stderr, installed.stderr && appLogs(home)).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`Installed 1.2.0 in ${home}`);
  }, 240_000);

  afterAll(async () => {
    if (home && existsSync(home))
      await new LocalProcessRuntime({
        home,
        pgBin: PG_BIN,
        pgUser: 'postgres',
        nodeModules: null,
        nodeBinary: process.execPath,
        log: () => {},
      })
        .stopAll()
        .catch(() => {});
    folder?.remove();
  }, 60_000);

  it('installs 1.2.0 and answers healthy with the licence', async () => {
    expect(await service()).toEqual({ health: 200, version: '1.2.0' });
    const status = await installer(pkg('service-1.2.0'), 'status');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/installed version\s+1\.2\.0/);
    expect(status.stdout).toMatch(/running version\s+1\.2\.0/);
    expect(status.stdout).toMatch(
      /licence\s+Self-hosted licence for Test Ltd, features api, 5 seats, expires 2099-01-01 \(\d+ days left\); REST API feature: yes/,
    );
    expect(status.stdout).toMatch(/package signer\s+key \w{8} \(configured key, not the vendor\)/);
  });

  it('takes writes through the REST API with a key made through the session endpoints', async () => {
    const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'XMLHttpRequest' },
      body: JSON.stringify({ email: 'owner@example.com', password: 'owner-password-1' }),
    });
    expect(login.status).toBe(200);
    const session = {
      cookie: login.headers.get('set-cookie')!.split(';')[0]!,
      'x-requested-with': 'XMLHttpRequest',
      'content-type': 'application/json',
    };
    const createKey = async (clientIds: string[]) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/profile/api-keys`, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ name: 'e2e', scope: 'read-write', clientIds }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { key: string }).key;
    };
    apiKey = await createKey([]);
    const client = await rest('POST', '/clients', { name: 'Acme Corp' });
    expect(client.status).toBe(201);
    ids.client = client.body.id;
    apiKey = await createKey([ids.client]);
    ids.project = (await rest('POST', '/projects', { clientId: ids.client, name: 'External test' })).body.id;
    ids.report = (await rest('POST', '/reports', { projectId: ids.project, title: 'Final report' })).body.id;
    const finding = await rest('POST', '/findings', {
      reportId: ids.report,
      title: 'SQL injection in login',
      severity: 'high',
    });
    expect(finding.status).toBe(201);
    ids.finding = finding.body.id;
    const form = new FormData();
    form.set('findingId', ids.finding);
    form.set('file', new Blob([PNG]), 'login.png');
    const evidence = await rest('POST', '/evidence-images', form);
    expect(evidence.status).toBe(201);
    ids.evidence = evidence.body.id;
    await expectOriginalData();
  });

  it('refuses to upgrade without a recent backup, naming the backup command', async () => {
    const run = await installer(pkg('service-1.3.0'), 'upgrade', '--yes');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: upgrade refused, nothing was changed: no backup of 1.2.0 in ` +
        `${home}/backups; an upgrade needs one from the last 24 hours\nhint: Run ` +
        `\`install.sh backup --home ${home}\` first (from this package or the installed ` +
        `one).\n`,
    );
    expect(await service()).toEqual({ health: 200, version: '1.2.0' });
  });

  it('backs up 1.2.0: dumps, files and configuration, verified', async () => {
    const run = await installer(pkg('service-1.2.0'), 'backup');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ok Verify the backup: \d+ files match their checksums; \d+ dump entries listed/);
    expect(run.stdout).toMatch(/Backup written: .*\/backups\/service-1\.2\.0-\d{8}T\d{6}Z\.tar\.gz/);
    // Evidence files: the image uploaded above and the library's own images.
    const listing = execFileSync('sh', ['-c', `tar tzf ${home}/backups/service-1.2.0-*.tar.gz`]).toString();
    expect(listing).toMatch(
      /^backup-manifest\.json\nSHA256SUMS\ndatabases\/control-plane\.dump\ndatabases\/shared\.dump\ndatabases\/tenant\.dump\n(?:files\/\S+\n)+config\/\.env\nconfig\/docker\/Caddyfile\nconfig\/docker\/certs\/README\.md\n$/,
    );
  });

  it('refuses a tampered, an unsigned and a wrongly signed package, changing nothing', async () => {
    const envBefore = readFileSync(path.join(home, '.env'));
    const variant = (name: string, change: (dir: string) => void) => {
      const dir = pkg(name);
      cpSync(pkg('service-1.3.0'), dir, { recursive: true });
      change(dir);
      return dir;
    };
    const tampered = variant('tampered', (dir) =>
      writeFileSync(path.join(dir, 'compose.yaml'), 'services: {backdoor: {image: evil}}\n'),
    );
    const unsigned = variant('unsigned', (dir) =>
      ['SHA256SUMS.sig', 'manifest.json.sig'].forEach((f) => rmSync(path.join(dir, f))),
    );
    const other = createTestSigningKey();
    const wronglySigned = variant('wrongly-signed', (dir) => {
      for (const f of [SUMS_FILE, MANIFEST_FILE])
        writeFileSync(
          path.join(dir, `${f}.sig`),
          signReleaseFile(f, readFileSync(path.join(dir, f)), other.privateKey),
        );
    });
    const cases: Array<[string, RegExp]> = [
      [
        tampered,
        /^error: upgrade refused, nothing was changed: the package files do not match SHA256SUMS: 1 changed \(compose\.yaml\)\n/,
      ],
      [
        unsigned,
        /^error: upgrade refused, nothing was changed: the package is not signed: SHA256SUMS\.sig is missing\n/,
      ],
      [
        wronglySigned,
        /^error: upgrade refused, nothing was changed: SHA256SUMS is signed with key \w{8}, which this installer does not trust \(trusted keys: a006e716, \w{8}\)\n/,
      ],
    ];
    for (const [dir, message] of cases) {
      const run = await installer(dir, 'upgrade', '--yes');
      expect(run.stderr).toMatch(message);
      expect(run.code).toBe(1);
    }
    expect(readFileSync(path.join(home, '.env')).equals(envBefore)).toBe(true);
    expect(await service()).toEqual({ health: 200, version: '1.2.0' });
  }, 60_000);

  it('puts 1.2.0 back when the new app fails to start before touching the databases', async () => {
    const envBefore = readFileSync(path.join(home, '.env'));
    const composeBefore = readFileSync(path.join(home, 'compose.yaml'));
    const run = await installer(pkg('service-1.4.0'), 'upgrade', '--yes');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('cannot start: broken on purpose');
    expect(run.stdout).toMatch(/ok Roll back to 1\.2\.0: 1\.2\.0 runs again/);
    expect(run.stderr).toMatch(
      /^error: the upgrade to 1\.4\.0 failed: 1\.4\.0 did not start \(the app exited with code 3\); the databases were not changed\. 1\.2\.0 is running again; nothing else changed\n/,
    );
    expect(readFileSync(path.join(home, '.env')).equals(envBefore)).toBe(true);
    expect(readFileSync(path.join(home, 'compose.yaml')).equals(composeBefore)).toBe(true);
    expect(await service()).toEqual({ health: 200, version: '1.2.0' });
    await expectOriginalData();
  }, 120_000);

  it('upgrades to 1.3.0: health, version and data', async () => {
    const envBefore = readFileSync(path.join(home, '.env'), 'utf8');
    const dry = await installer(pkg('service-1.3.0'), 'upgrade', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Dry run: nothing was changed.');
    const run = await installer(pkg('service-1.3.0'), 'upgrade', '--yes');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /Upgraded .* from 1\.2\.0 to 1\.3\.0 in [\d.]+ s \(the service was unavailable for [\d.]+ s\)/,
    );
    expect(readFileSync(path.join(home, '.env'), 'utf8')).toBe(
      envBefore.replace('SERVICE_VERSION=1.2.0', 'SERVICE_VERSION=1.3.0'),
    );
    expect(readFileSync(path.join(home, '.previous-1.2.0/manifest.json'), 'utf8')).toContain('"version": "1.2.0"');
    expect(await service()).toEqual({ health: 200, version: '1.3.0' });
    await expectOriginalData();
    const later = await rest('POST', '/findings', {
      reportId: ids.report,
      title: 'Written after the upgrade',
      severity: 'low',
    });
    expect(later.status).toBe(201);
    ids.later = later.body.id;
  }, 120_000);

  it('refuses the same version, and an older package even under a newer name', async () => {
    const same = await installer(pkg('service-1.3.0'), 'upgrade', '--yes');
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('Already at 1.3.0; nothing to upgrade.');
    renameSync(pkg('service-1.2.0'), pkg('service-9.9.9'));
    try {
      const older = await installer(pkg('service-9.9.9'), 'upgrade', '--yes');
      expect(older.code).toBe(1);
      expect(older.stderr).toMatch(
        /^error: upgrade refused, nothing was changed: the package holds 1\.2\.0, older than the installed 1\.3\.0; upgrade never goes back( \(and 1 more failed check\(s\) above\))?\nhint: To go back to 1\.2\.0, restore a backup taken on 1\.2\.0: run `install\.sh restore <backup>` from the directory of service-1\.2\.0-offline\.tar\.gz\.\n$/,
      );
    } finally {
      renameSync(pkg('service-9.9.9'), pkg('service-1.2.0'));
    }
    expect(await service()).toEqual({ health: 200, version: '1.3.0' });
  }, 60_000);

  it('imports the global library on request and comes back healthy', async () => {
    const run = await installer(pkg('service-1.3.0'), 'import-globals', '--yes');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The global library of 1.3.0 was imported; the service is healthy.');
  }, 60_000);

  it('restores the 1.2.0 backup only from the 1.2.0 package, and then has the data of the backup', async () => {
    const backup = execFileSync('sh', ['-c', `ls ${home}/backups/service-1.2.0-*.tar.gz`])
      .toString()
      .trim();
    const wrong = await installer(pkg('service-1.3.0'), 'restore', backup, '--yes');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      `error: restore refused, nothing was changed: ${backup} was taken on 1.2.0; this ` +
        `package is 1.3.0\nhint: Run the restore from the directory of ` +
        `service-1.2.0-offline.tar.gz.\n`,
    );

    const run = await installer(pkg('service-1.2.0'), 'restore', backup, '--yes');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Restored service-1\.2\.0-\d{8}T\d{6}Z\.tar\.gz: .* runs 1\.2\.0/);
    expect(run.stdout).toMatch(/Kept from before the restore .*database service_tenant_before_\d{14}/);
    expect(await service()).toEqual({ health: 200, version: '1.2.0' });
    await expectOriginalData();
    expect((await rest('GET', `/findings/${ids.later}`)).status).toBe(404);
    expect(readFileSync(path.join(home, '.env'), 'utf8')).toContain('SERVICE_VERSION=1.2.0');
  }, 120_000);

  it('says who holds the lock when a second run starts', async () => {
    writeFileSync(
      path.join(home, '.installer.lock'),
      JSON.stringify({
        pid: process.pid,
        command: 'upgrade',
        startedAt: '2026-11-23T10:00:00.000Z',
        host: (await import('node:os')).hostname(),
      }),
    );
    try {
      const run = await installer(pkg('service-1.2.0'), 'status');
      expect(run.code).toBe(75);
      expect(run.stderr).toMatch(
        /^error: another installer run holds .*\.installer\.lock: `upgrade` \(pid \d+ on \S+\) since 2026-11-23T10:00:00\.000Z\n/,
      );
    } finally {
      rmSync(path.join(home, '.installer.lock'));
    }
  });
});

/** The last lines of every log under the installation's logs/ folder. */
function appLogs(home: string): string {
  const dir = path.join(home, 'logs');
  if (!existsSync(dir)) return `(no ${dir})`;
  return readdirSync(dir)
    .map((name) => `--- ${name}\n${readFileSync(path.join(dir, name), 'utf8').split('\n').slice(-40).join('\n')}`)
    .join('\n');
}
