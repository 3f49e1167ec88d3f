// Runs the real CLI as the vendor would (node --import tsx tools/license/src/main.ts) in a temp dir.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicKey, parseSigningKey, signLicense } from './license-api.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runLicense(args: string[], cwd?: string): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Why control INIT_CWD: main.ts resolves relative paths against it, and `npm test` sets it.
  if (cwd === undefined) delete env.INIT_CWD;
  else env.INIT_CWD = cwd;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'tools/license/src/main.ts', ...args],
      { cwd: repoRoot, env },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

// The command kit's shape: one `error:` line, then at most one `hint:` line.
function expectOneLineError(result: RunResult, pattern: RegExp, exitCode = 1): void {
  expect(result.code).toBe(exitCode);
  expect(result.stderr).toMatch(/^error: [^\n]+\n(hint: [^\n]+\n)?$/);
  expect(result.stderr).toMatch(pattern);
}

describe('license tool', () => {
  let dir: string;
  let keyDir: string;
  let publicKey: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'license-tool-'));
    keyDir = path.join(dir, 'keys');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'keygen writes a private key (0600) and a base64 public key, prints the key id, ' + 'and never overwrites',
    async () => {
      const result = await runLicense(['keygen', '--out', keyDir]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const privateFile = path.join(keyDir, 'license-signing.key.pem');
      expect(statSync(privateFile).mode & 0o777).toBe(0o600);
      publicKey = readFileSync(path.join(keyDir, 'license-signing.pub'), 'utf8').trim();
      expect(result.stdout).toContain(`Key id: ${parsePublicKey(publicKey).keyId}`);

      const again = await runLicense(['keygen', '--out', keyDir]);
      expectOneLineError(
        again,
        /license-signing\.key\.pem already exists; keygen never overwrites a key\nhint: Choose another --out directory/,
      );
      expect(readFileSync(path.join(keyDir, 'license-signing.pub'), 'utf8').trim()).toBe(publicKey);
    },
  );

  it('signs a licence, and verify accepts it only with the trusted key', async () => {
    const licenseFile = path.join(dir, 'acme.license');
    const signed = await runLicense([
      'sign',
      '--key',
      path.join(keyDir, 'license-signing.key.pem'),
      '--holder',
      'Acme Ltd',
      '--edition',
      'self-hosted',
      '--features',
      'api,docx-export',
      '--seats',
      '10',
      '--expires',
      '2099-12-31',
      '--out',
      licenseFile,
    ]);
    expect(signed.stderr).toBe('');
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(
      /Wrote licence .* Self-hosted licence for Acme Ltd, features api, docx-export, 10 seats, expires 2099-12-31/,
    );
    expect(JSON.parse(readFileSync(licenseFile, 'utf8'))).toMatchObject({
      format: 'service-license-v1',
      keyId: parsePublicKey(publicKey).keyId,
    });

    const ok = await runLicense(['verify', licenseFile, '--trusted-key', publicKey]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(
      'Self-hosted licence for Acme Ltd, features api, docx-export, 10 seats, expires 2099-12-31',
    );

    const untrusted = await runLicense(['verify', licenseFile]);
    expectOneLineError(untrusted, /licence signature does not match any trusted key [\s\S]*--trusted-key/);

    const again = await runLicense([
      'sign',
      '--key',
      path.join(keyDir, 'license-signing.key.pem'),
      '--holder',
      'X',
      '--edition',
      'hosted',
      '--features',
      'all',
      '--seats',
      '1',
      '--expires',
      '2099-01-01',
      '--out',
      licenseFile,
    ]);
    expectOneLineError(again, /acme\.license already exists and is never overwritten/);
  });

  it('prints the licence when there is no --out, resolving relative paths from where npm was run', async () => {
    const result = await runLicense(
      [
        'sign',
        '--key',
        'keys/license-signing.key.pem',
        '--holder',
        'Beta',
        '--edition',
        'hosted',
        '--features',
        'all',
        '--seats',
        '3',
        '--expires',
        '2099-06-30T12:00:00Z',
      ],
      dir,
    );
    expect(result.code).toBe(0);
    writeFileSync(path.join(dir, 'beta.license'), result.stdout);
    const ok = await runLicense(['verify', 'beta.license', '--trusted-key', publicKey], dir);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('Hosted licence for Beta, all features, 3 seats, expires 2099-06-30');
  });

  it('verify fails on a tampered licence', async () => {
    const original = JSON.parse(readFileSync(path.join(dir, 'acme.license'), 'utf8')) as { payload: string };
    const payload = JSON.parse(Buffer.from(original.payload, 'base64url').toString('utf8')) as { seats: number };
    payload.seats = 1000;
    const tampered = { ...original, payload: Buffer.from(JSON.stringify(payload)).toString('base64url') };
    const file = path.join(dir, 'tampered.license');
    writeFileSync(file, JSON.stringify(tampered));
    const result = await runLicense(['verify', file, '--trusted-key', publicKey]);
    expectOneLineError(result, /licence signature does not match any trusted key/);
    expect(result.stdout).toBe('');
  });

  it('verify shows an expired licence and fails', async () => {
    const key = parseSigningKey(readFileSync(path.join(keyDir, 'license-signing.key.pem'), 'utf8'));
    const file = path.join(dir, 'old.license');
    writeFileSync(
      file,
      signLicense(
        {
          id: '6f1c2a9e-3b4d-4c5e-8f70-112233445566',
          holder: 'Old Co',
          edition: 'self-hosted',
          features: ['api'],
          seats: 2,
          issuedAt: '2024-01-01T00:00:00.000Z',
          expiresAt: '2025-01-01T00:00:00.000Z',
        },
        key,
      ),
    );
    const result = await runLicense(['verify', file, '--trusted-key', publicKey]);
    expect(result.stdout).toContain('Self-hosted licence for Old Co, features api, 2 seats, expired on 2025-01-01');
    expectOneLineError(
      result,
      /licence 6f1c2a9e-3b4d-4c5e-8f70-112233445566 for Old Co expired on 2025-01-01\nhint: Ask the vendor/,
    );
  });

  it('explains bad input in one line with the next step', async () => {
    expectOneLineError(
      await runLicense(['verify', path.join(dir, 'missing.license')]),
      /missing\.license does not exist/,
    );
    expectOneLineError(
      await runLicense(['verify']),
      /verify needs the argument <file>\nhint: Run `npm run license -- verify --help`/,
      2,
    );
    expectOneLineError(
      await runLicense(['sign', '--holder', 'x']),
      /sign needs --key <private\.pem>\nhint: Run `npm run license -- sign --help`/,
      2,
    );
    expectOneLineError(await runLicense(['sign', '--nope']), /sign: unknown option --nope/, 2);
    expectOneLineError(
      await runLicense(['frobnicate']),
      /unknown command "frobnicate"; commands are keygen, sign, verify/,
      2,
    );
    const garbage = path.join(dir, 'garbage.license');
    writeFileSync(garbage, 'hello');
    expectOneLineError(await runLicense(['verify', garbage]), /licence file is not valid JSON/);
  });

  it.each(['keygen', 'sign', 'verify'])('%s --help shows usage and exits 0', async (command) => {
    const result = await runLicense([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: npm run license -- ${command} [options]`);
  });

  it('--help lists the commands', async () => {
    const result = await runLicense(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/keygen[\s\S]*sign[\s\S]*verify/);
  });
});
