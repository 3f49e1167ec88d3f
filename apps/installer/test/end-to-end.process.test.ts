// End to end on this machine (INSTALLER.md "How it is tested", 3): real packages built by
// tools/release (images from the stand-in docker), installed and upgraded by the real installer
// (install.sh, built JavaScript) with the local-process runtime: the built app as a local process
// on a throwaway PostgreSQL 15 cluster in the installation directory. Besides the normal path, a
// few real crashes (SIGKILL through SERVICE_INSTALLER_TEST_FAULT), a full disk, a dropped session
// and a monitor polling at 20 Hz; src/plan/crash-recovery.test.ts covers every phase boundary.
import { execFile, execFileSync, spawn } from 'node:child_process';
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
import { processBudgetMs } from '@service/test-lanes';
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
  const ids: Record<string, string | undefined> = {};
  const pkg = (name: string) => folder.path('packages', name);

  /** ./install.sh as an operator runs it, from a package folder, with nothing on stdin. */
  function installer(packageDir: string, ...args: string[]): Promise<Run> {
    return installerWith({}, '', packageDir, ...args);
  }

  /** ./install.sh with extra environment (a test fault) and scripted answers on stdin. */
  function installerWith(extra: NodeJS.ProcessEnv, input: string, packageDir: string, ...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      const child = execFile(
        'sh',
        [path.join(packageDir, 'install.sh'), ...args, '--home', home],
        { cwd: packageDir, env: { ...env, ...extra }, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) =>
          resolve({
            code: err ? (typeof err.code === 'number' ? err.code : err.signal ? 137 : 1) : 0,
            stdout,
            stderr,
          }),
      );
      child.stdin?.end(input);
    });
  }

  /**
   * Polls /api/health at 20 Hz from outside, as an aggressive monitor does, until stopped; returns
   * every status seen (0: no answer, the service restarting).
   */
  function monitor(): { stop(): Promise<number[]> } {
    const seen: number[] = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        const tick = new Promise((r) => setTimeout(r, 50));
        seen.push(
          await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2000) }).then(
            (r) => r.status,
            () => 0,
          ),
        );
        await tick;
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        return seen;
      },
    };
  }

  function journal(): { operation: string; phase: string; state: string } | null {
    const file = path.join(home, '.installer/journal.json');
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
  }

  /** The last log of a command, as the operator follows it with tail -f. */
  function lastLog(command: string): string {
    const dir = path.join(home, 'logs');
    const name = readdirSync(dir)
      .filter((n) => n.startsWith(`installer-${command}-`))
      .sort()
      .pop()!;
    return readFileSync(path.join(dir, name), 'utf8');
  }

  async function rest(
    method: string,
    pathname: string,
    body?: unknown,
    key = apiKey,
  ): Promise<{ status: number; body: { id: string; name?: string } }> {
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

    // A real package with the release tool's command line, as a release engineer builds it.
    for (const version of ['1.2.0']) {
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
    // 1.3.0 ships a library with one new and one changed finding template (the tool's library seam).
    const library = folder.path('library-1.3.0');
    cpSync(path.join(REPO, 'library'), library, { recursive: true });
    const templates = path.join(library, 'finding-templates');
    writeFileSync(
      path.join(templates, 'excessive-privileges-in-the-cloud.md'),
      readFileSync(path.join(templates, 'excessive-privileges.md'), 'utf8')
        .replace('key: excessive-privileges', 'key: excessive-privileges-in-the-cloud')
        .replace('# Excessive privileges in Active Directory', '# Excessive privileges in cloud accounts'),
    );
    writeFileSync(
      path.join(templates, 'xpath-injection.md'),
      readFileSync(path.join(templates, 'xpath-injection.md'), 'utf8').replace(
        '# XPath and XML injection',
        '# XPath and XML injection in queries',
      ),
    );
    await buildRelease({
      repoRoot: REPO,
      version: '1.3.0',
      outDir: folder.path('dist'),
      changelogFile: folder.path('CHANGELOG.md'),
      signKeyFile: folder.path('vendor.pem'),
      engine: new DockerCli({ ...process.env, PATH: docker.path }),
      out: () => {},
      libraryDir: library,
    });
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
    expect(installed.stdout).toContain(`Installed 1.2.0 in ${home}; the first administrator is owner@example.com`);
    // The first administrator's password reached the first start only.
    expect(readFileSync(path.join(home, '.env'), 'utf8')).not.toContain('owner-password-1');
    expect(readFileSync(path.join(home, '.env'), 'utf8')).toMatch(/^SERVICE_ADMIN_PASSWORD=$/m);
  }, processBudgetMs(5));

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
  });

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

  it('shows the plan with the backup it will take, the library counts and the engine, changing nothing', async () => {
    const dry = await installer(pkg('service-1.3.0'), 'upgrade', '--dry-run');
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Back up 1.2.0 (databases, files, configuration) right before the first change');
    expect(dry.stdout).toContain(
      'Library: 1 new and 1 updated item(s); you will be asked whether to import them (default no)',
    );
    expect(dry.stdout).toContain('Dry run: nothing was changed.');
    expect(existsSync(path.join(home, 'backups'))).toBe(true);
    expect(readdirSync(path.join(home, 'backups')).filter((n) => n.endsWith('.tar.gz'))).toEqual([]);
  });

  it('backs up 1.2.0: dumps, files and configuration, verified', async () => {
    const run = await installer(pkg('service-1.2.0'), 'backup');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ok Verify the backup: \d+ files match their checksums; \d+ dump entries listed/);
    expect(run.stdout).toMatch(/Backup written: .*\/backups\/service-1\.2\.0-\d{8}T\d{6}Z\.tar\.gz/);
    ids.backup = /Backup written: (\S+\.tar\.gz)/.exec(run.stdout)![1]!;
    // Evidence files: the image uploaded above and the library's own images.
    const listing = execFileSync('tar', ['tzf', ids.backup]).toString();
    expect(listing).toMatch(
      /^backup-manifest\.json\nSHA256SUMS\ndatabases\/control-plane\.dump\ndatabases\/shared\.dump\ndatabases\/tenant\.dump\n(?:files\/\S+\n)+config\/\.env\nconfig\/docker\/Caddyfile\nconfig\/docker\/certs\/README\.md\n$/,
    );
  });

  it(
    'refuses a tampered, an unsigned and a wrongly signed package, changing nothing',
    async () => {
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
      const unsigned = variant('unsigned', (dir) => {
        for (const f of ['SHA256SUMS.sig', 'manifest.json.sig']) rmSync(path.join(dir, f));
      });
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
        // install.sh refuses these before any code of the package runs.
        [unsigned, /^error: the package is not signed: SHA256SUMS\.sig is missing\n/],
        [wronglySigned, /^error: SHA256SUMS does not match its signature by any trusted key\n/],
      ];
      for (const [dir, message] of cases) {
        const run = await installer(dir, 'upgrade', '--yes');
        expect(run.stderr).toMatch(message);
        expect(run.code).toBe(1);
      }
      // The installer itself refuses it too, when started without install.sh.
      const direct = await new Promise<Run>((resolve) =>
        execFile(
          process.execPath,
          [path.join(wronglySigned, 'installer/installer.mjs'), 'upgrade', '--yes', '--home', home],
          { cwd: wronglySigned, env },
          (err, stdout, stderr) => resolve({ code: err ? (err.code as number) : 0, stdout, stderr }),
        ),
      );
      expect(direct.stderr).toMatch(
        /^error: upgrade refused, nothing was changed: SHA256SUMS is signed with key \w{8}, which this installer does not trust \(trusted keys: a006e716, \w{8}\)\n/,
      );
      expect(readFileSync(path.join(home, '.env')).equals(envBefore)).toBe(true);
      expect(await service()).toEqual({ health: 200, version: '1.2.0' });
    },
    processBudgetMs(3),
  );

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
  });

  it(
    'survives a SIGKILL in the middle of the file swap: refuses everything else, status says what to run, recover puts 1.2.0 back',
    async () => {
      const envBefore = readFileSync(path.join(home, '.env'));
      const composeBefore = readFileSync(path.join(home, 'compose.yaml'));
      const killed = await installerWith(
        { SERVICE_INSTALLER_TEST_FAULT: 'kill@upgrade:files:done' },
        '',
        pkg('service-1.3.0'),
        'upgrade',
        '--yes',
      );
      expect(killed.code).toBe(137);
      expect(journal()).toMatchObject({ operation: 'upgrade', phase: 'files', state: 'done' });

      const again = await installer(pkg('service-1.3.0'), 'upgrade', '--yes');
      expect(again.code).toBe(1);
      expect(again.stdout).toContain('took over a stale lock of `upgrade`');
      expect(again.stdout).not.toContain('Already at');
      expect(again.stderr).toMatch(/^error: upgrade refused: an upgrade 1\.2\.0 -> 1\.3\.0 started \S+ did not finish/);
      const backup = await installer(pkg('service-1.2.0'), 'backup');
      expect(backup.code).toBe(1);
      expect(backup.stderr).toMatch(/^error: backup refused: an upgrade 1\.2\.0 -> 1\.3\.0/);

      const status = await installer(pkg('service-1.3.0'), 'status');
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('UNFINISHED: an upgrade 1.2.0 -> 1.3.0 started');
      expect(status.stdout).toContain(
        `what to do         cd ${pkg('service-1.3.0')} && ./install.sh recover --home ${home}`,
      );

      const recover = await installer(pkg('service-1.3.0'), 'recover', '--yes');
      expect(recover.stderr).toBe('');
      expect(recover.code).toBe(0);
      expect(recover.stdout).toContain(`Recovered: ${home} runs 1.2.0`);
      expect(journal()).toBeNull();
      expect(readFileSync(path.join(home, '.env')).equals(envBefore)).toBe(true);
      expect(readFileSync(path.join(home, 'compose.yaml')).equals(composeBefore)).toBe(true);
      expect(await service()).toEqual({ health: 200, version: '1.2.0' });
      await expectOriginalData();
    },
    processBudgetMs(5),
  );

  it('rolls back by itself when the disk is full at the file swap', async () => {
    const run = await installerWith(
      { SERVICE_INSTALLER_TEST_FAULT: 'enospc@upgrade:files:started' },
      '',
      pkg('service-1.3.0'),
      'upgrade',
      '--yes',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: the upgrade to 1\.3\.0 failed: replacing the files failed: ENOSPC: no space left on device.*\. 1\.2\.0 is running again; nothing else changed\n/,
    );
    expect(journal()).toBeNull();
    expect(await service()).toEqual({ health: 200, version: '1.2.0' });
    await expectOriginalData();
    expect((await installer(pkg('service-1.3.0'), 'status')).stdout).not.toContain('UNFINISHED');
  });

  it(
    'upgrades to 1.3.0 under a 20 Hz monitor, through a dropped session, SIGHUP and SIGTERM: health, version, data ' +
      'and the library question',
    async () => {
      const envBefore = readFileSync(path.join(home, '.env'), 'utf8');
      const watch = monitor();
      const child = spawn('sh', [path.join(pkg('service-1.3.0'), 'install.sh'), 'upgrade', '--yes', '--home', home], {
        cwd: pkg('service-1.3.0'),
        env,
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stdin.end('n\n');
      const exited = new Promise<number | string>((resolve) =>
        child.on('exit', (code, signal) => resolve(code ?? signal!)),
      );
      // While the new version starts: the terminal goes away, then the hangup and a kill arrive.
      while (journal()?.phase !== 'health' && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
      child.stdout.destroy();
      child.kill('SIGHUP');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const statuses = await watch.stop();
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(10);

      expect(stdout).toContain(
        `Library: 1 new and 1 updated item(s); you will be asked whether to import them (default no)`,
      );
      expect(stdout).toMatch(/Restore point: .*service-1\.2\.0-\d{8}T\d{6}Z\.tar\.gz \(taken \d+ s ago/);
      const log = lastLog('upgrade');
      expect(log).toContain('received SIGHUP during the upgrade; held back');
      expect(log).toContain('received SIGTERM during the upgrade; held back');
      expect(log).toContain('The global library of 1.3.0 has 1 new and 1 updated item(s).');
      expect(log).toContain('asked: Import them now (the service restarts)? -> no');
      expect(log).toMatch(
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
    },
  );

  it(
    'refuses the same version, and an older package even under a newer name',
    async () => {
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
    },
    processBudgetMs(3),
  );

  it('imports the global library on request and comes back healthy', async () => {
    const run = await installer(pkg('service-1.3.0'), 'import-globals', '--yes');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /The global library of 1\.3\.0 was imported: 1 new, 1 updated, 0 marked removed, \d+ unchanged; the service is healthy\./,
    );
  });

  it(
    'undoes a restore killed before it swapped the databases in: recover starts 1.3.0 with its data again',
    async () => {
      const killed = await installerWith(
        { SERVICE_INSTALLER_TEST_FAULT: 'kill@restore:dumps:done' },
        '',
        pkg('service-1.2.0'),
        'restore',
        ids.backup!,
        '--yes',
      );
      expect(killed.code).toBe(137);
      const status = await installer(pkg('service-1.2.0'), 'status');
      expect(status.stdout).toContain('UNFINISHED: a restore of a backup of 1.2.0');
      const recover = await installer(pkg('service-1.2.0'), 'recover', '--yes');
      expect(recover.stderr).toBe('');
      expect(recover.stdout).toContain(`Recovered: ${home} runs 1.3.0`);
      expect(await service()).toEqual({ health: 200, version: '1.3.0' });
      expect((await rest('GET', `/findings/${ids.later}`)).status).toBe(200);
    },
    processBudgetMs(3),
  );

  it(
    'restores the 1.2.0 backup only from the 1.2.0 package, under a 20 Hz monitor, and then has the data of the backup',
    async () => {
      const backup = ids.backup!;
      const wrong = await installer(pkg('service-1.3.0'), 'restore', backup, '--yes');
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toBe(
        `error: restore refused, nothing was changed: ${backup} was taken on 1.2.0; this ` +
          `package is 1.3.0\nhint: Run the restore from the directory of ` +
          `service-1.2.0-offline.tar.gz.\n`,
      );

      const watch = monitor();
      const run = await installer(pkg('service-1.2.0'), 'restore', backup, '--yes');
      const statuses = await watch.stop();
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      expect(run.stdout).toMatch(/Restored service-1\.2\.0-\d{8}T\d{6}Z\.tar\.gz: .* runs 1\.2\.0/);
      expect(run.stdout).toMatch(/Kept from before the restore .*database service_tenant_before_\d{14}/);
      expect(await service()).toEqual({ health: 200, version: '1.2.0' });
      await expectOriginalData();
      expect((await rest('GET', `/findings/${ids.later}`)).status).toBe(404);
      expect(readFileSync(path.join(home, '.env'), 'utf8')).toContain('SERVICE_VERSION=1.2.0');
    },
    processBudgetMs(3),
  );

  it(
    'goes forward after a SIGKILL while the new version starts: recover waits for it and finishes the upgrade',
    async () => {
      const killed = await installerWith(
        { SERVICE_INSTALLER_TEST_FAULT: 'kill@upgrade:start:done' },
        '',
        pkg('service-1.3.0'),
        'upgrade',
        '--yes',
      );
      expect(killed.code).toBe(137);
      const recover = await installer(pkg('service-1.3.0'), 'recover', '--yes');
      expect(recover.stderr).toBe('');
      expect(recover.stdout).toContain(`Recovered: ${home} runs 1.3.0`);
      expect(await service()).toEqual({ health: 200, version: '1.3.0' });
      await expectOriginalData();
      const status = await installer(pkg('service-1.3.0'), 'status');
      expect(status.stdout).toMatch(/last upgrade\s+1\.2\.0 -> 1\.3\.0, .*did not finish; recover finished it/);
    },
    processBudgetMs(3),
  );

  it(
    'lists leftovers with their sizes, and cleanup removes those older than a verified backup of the installed version',
    async () => {
      const status = await installer(pkg('service-1.3.0'), 'status');
      expect(status.stdout).toMatch(/leftovers\s+\d+, [\d.]+ (KiB|MiB|GiB)\n/);
      expect(status.stdout).toMatch(
        /database service_tenant_before_\d{14} [\d.]+ (KiB|MiB), \d+ (s|min) old: database kept by a restore/,
      );
      expect(status.stdout).toMatch(/\.previous-1\.2\.0\/ [\d.]+ (B|KiB|MiB)/);
      const refused = await installer(pkg('service-1.3.0'), 'cleanup', '--yes');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error: cleanup refused: there is no backup of 1\.3\.0/);
      expect((await installer(pkg('service-1.3.0'), 'backup')).code).toBe(0);
      const cleanup = await installer(pkg('service-1.3.0'), 'cleanup', '--yes');
      expect(cleanup.stderr).toBe('');
      expect(cleanup.stdout).toMatch(/Removed \d+ leftover\(s\), [\d.]+ (KiB|MiB|GiB) freed\./);
      expect((await installer(pkg('service-1.3.0'), 'status')).stdout).toMatch(/leftovers\s+none\n/);
      expect(await service()).toEqual({ health: 200, version: '1.3.0' });
      await expectOriginalData();
    },
    processBudgetMs(6),
  );

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
