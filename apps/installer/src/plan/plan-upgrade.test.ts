import { describe, expect, it } from 'vitest';
import { runChecks } from '../checks/all-checks.ts';
import type { Facts } from '../checks/preflight-check.ts';
import { parseEnvFile } from '../install-dir/env-file.ts';
import { factsFor, manifestOf } from '../testing/facts.ts';
import { planUpgrade, type UpgradeInputs } from './plan-upgrade.ts';

const inputs: UpgradeInputs = {
  imagesPresent: { database: true, files: true, proxy: true },
  installedUnits: [
    'compose.yaml',
    'docker/Dockerfile',
    'install.sh',
    'installer',
    'library',
    'manifest.json',
    'docker/old-file',
  ],
  newUnits: ['compose.yaml', 'docker/Dockerfile', 'install.sh', 'installer', 'library', 'manifest.json'],
  library: { added: 3, updated: 2, removed: 0 },
  restorePoint: { kind: 'take' },
  healthTimeoutMs: 300_000,
  healthGraceMs: 10_000,
};

function plan(change: (f: Facts) => void, installed = '1.2.0', offered = '1.3.0') {
  return planUpgrade(factsFor('upgrade', installed, offered, change), inputs);
}

function refusal(change: (f: Facts) => void, installed = '1.2.0', offered = '1.3.0') {
  const p = plan(change, installed, offered);
  expect(p.kind).toBe('refused');
  return p.kind === 'refused' ? p.failed : [];
}

const packageError = (code: string, message: string) => (f: Facts) => {
  f.package = { dir: '/tmp/p', verified: null, error: { code: code as never, message, hint: 'Get it again.' } };
};

describe('planUpgrade', () => {
  it('plans an upgrade: images to load, containers to recreate, files, the library question', () => {
    const p = plan(() => {});
    expect(p.kind).toBe('upgrade');
    if (p.kind !== 'upgrade') return;
    expect([p.from, p.to]).toEqual(['1.2.0', '1.3.0']);
    expect(p.imagesToLoad.map((i) => i.role)).toEqual(['app']);
    // Only the app image differs between the two test manifests.
    expect(p.recreate).toEqual(['app']);
    expect(p.files.remove).toEqual(['docker/old-file']);
    expect(p.steps.join('\n')).toMatch(
      /Load 1 image\(s\) \(service\/app:1\.3\.0\) while 1\.2\.0 keeps running[\s\S]*Keep \.env, docker\/Caddyfile, docker\/certs\/ and compose\.override\.yaml[\s\S]*SERVICE_VERSION=1\.3\.0[\s\S]*3 new and 2 updated/,
    );
  });

  it('says "already at X" for the same version and plans nothing', () => {
    expect(plan(() => {}, '1.3.0', '1.3.0')).toMatchObject({ kind: 'nothing-to-do', version: '1.3.0' });
  });

  it('refuses an older package, pointing to restore from that version', () => {
    const [failed] = refusal(() => {}, '1.3.0', '1.2.0');
    expect(failed).toMatchObject({
      id: 'version-order',
      detail: 'the package holds 1.2.0, older than the installed 1.3.0; upgrade never goes back',
    });
    expect(failed!.hint).toContain('service-1.2.0-offline.tar.gz');
  });

  it('compares the version inside the signed manifest, whatever the folder is called', () => {
    const failed = refusal(
      (f) => {
        f.package!.dir = '/tmp/service-9.9.9';
      },
      '1.3.0',
      '1.2.0',
    );
    expect(failed[0]!.id).toBe('version-order');
  });

  it('refuses a version below minUpgradeFrom, naming the version to install first', () => {
    const [failed] = refusal((f) => {
      f.package!.verified!.manifest = manifestOf('2.0.0', '1.5.0');
    });
    expect(failed!.detail).toBe('2.0.0 cannot be installed over 1.2.0 directly; it upgrades only from 1.5.0 or later');
    expect(failed!.hint).toBe('Upgrade to 1.5.0 first (service-1.5.0-offline.tar.gz), then to 2.0.0.');
  });

  it.each([
    [
      'tampered sums',
      'package_files',
      'the package files do not match SHA256SUMS: 1 changed (compose.yaml)',
      'package-files',
    ],
    [
      'an extra file',
      'package_files',
      'the package files do not match SHA256SUMS: 1 not listed (backdoor.sh)',
      'package-files',
    ],
    [
      'a missing image',
      'missing_image',
      'the package has no archive for the proxy image caddy:2 (images/proxy.tar is not in SHA256SUMS)',
      'package-files',
    ],
    ['no signature', 'signature_missing', 'the package is not signed: SHA256SUMS.sig is missing', 'package-signature'],
    [
      'an unknown key',
      'signature_unknown_key',
      'SHA256SUMS is signed with key 1234abcd, which this installer does not trust',
      'package-signature',
    ],
    [
      'a changed manifest',
      'signature_mismatch',
      'manifest.json does not match its signature by key a006e716',
      'package-signature',
    ],
  ])('refuses a package with %s, even at the installed version', (_what, code, message, check) => {
    for (const installed of ['1.2.0', '1.3.0']) {
      const p = planUpgrade(factsFor('upgrade', installed, '1.3.0', packageError(code, message)), inputs);
      expect(p.kind).toBe('refused');
      if (p.kind === 'refused') expect(p.failed).toEqual([expect.objectContaining({ id: check, detail: message })]);
    }
  });

  it('needs no earlier backup: the plan takes one right before the first change, or says how old a reused one is', () => {
    const p = plan((f) => {
      f.installation.backups = [];
    });
    if (p.kind !== 'upgrade') throw new Error(p.kind);
    expect(p.checks.map((c) => c.id)).not.toContain('recent-backup');
    expect(p.steps[1]).toBe(
      'Back up 1.2.0 (databases, files, configuration) right before the first change; the upgrade can always go back to it',
    );
    const reuse = planUpgrade(factsFor('upgrade', '1.2.0', '1.3.0'), {
      ...inputs,
      restorePoint: {
        kind: 'reuse',
        file: '/opt/service/backups/service-1.2.0-20261123T095500Z.tar.gz',
        ageMs: 300_000,
      },
    });
    expect(reuse.kind === 'upgrade' && reuse.steps[1]).toBe(
      'Reuse the backup /opt/service/backups/service-1.2.0-20261123T095500Z.tar.gz, taken 5 min ago (--reuse-backup); ' +
        'what is written after it would be lost by going back',
    );
    const skip = planUpgrade(factsFor('upgrade', '1.2.0', '1.3.0'), { ...inputs, restorePoint: { kind: 'skip' } });
    expect(skip.kind === 'upgrade' && skip.steps[1]).toMatch(/^NO backup \(--skip-backup\)/);
  });

  it.each([
    ['a line that is not KEY=value', 'SERVICE_VERSION=1.2.0\nthis is not a setting\n', '.env line 2 is not KEY=value'],
    [
      'an unterminated quote',
      'SERVICE_VERSION=1.2.0\nPOSTGRES_PASSWORD="abc\n',
      'line 2 has an unterminated quote in the value of POSTGRES_PASSWORD',
    ],
    ['no SERVICE_VERSION', 'POSTGRES_PASSWORD=x\n', 'has no SERVICE_VERSION'],
    ['a SERVICE_VERSION that is no version', 'SERVICE_VERSION=latest\n', 'SERVICE_VERSION=latest, not a version'],
  ])('refuses a malformed .env: %s', (_what, text, message) => {
    const failed = refusal((f) => {
      f.installation.env = parseEnvFile(text);
    });
    expect(failed[0]!.id).toBe('env-file');
    expect(failed[0]!.detail).toContain(message);
  });

  it('refuses when the disk is too full for the images', () => {
    const [failed] = refusal((f) => {
      f.disks = [
        {
          dir: '/var/lib/docker',
          freeBytes: 100 * 1024 ** 2,
          neededBytes: 2 * 1024 ** 3,
          purpose: 'loading the images',
        },
      ];
    });
    expect(failed).toMatchObject({
      id: 'disk-space',
      detail: '100 MiB free on /var/lib/docker, 2.00 GiB needed for loading the images',
    });
  });

  it('refuses when the engine is missing, or the running service disagrees with .env', () => {
    expect(refusal((f) => (f.engine = { ok: false, detail: 'Docker does not answer', versions: null }))[0]!.id).toBe(
      'container-engine',
    );
    const [inconsistent] = refusal((f) => (f.installation.runningVersion = '1.3.0'));
    expect(inconsistent!.detail).toBe('the service runs 1.3.0, but .env says SERVICE_VERSION=1.2.0');
  });

  it('refuses a Docker Engine or compose older than compose.yaml needs, and only warns about it in status', () => {
    const old = (engine: string, compose: string) => (f: Facts) => {
      f.engine = { ok: true, detail: `Docker ${engine} with compose ${compose}`, versions: { engine, compose } };
    };
    expect(refusal(old('24.0.7', '2.29.7'))[0]).toMatchObject({
      id: 'container-engine',
      detail: 'too old: Docker Engine 24.0.7 (25.0 or newer needed)',
    });
    expect(refusal(old('27.3.1', '2.21.0'))[0]!.detail).toBe('too old: compose 2.21.0 (2.24.0 or newer needed)');
    expect(plan(old('25.0.0', '2.24.0')).kind).toBe('upgrade');
    expect(plan(old('28.0.0-rc.1', 'v2.30.0-desktop.1')).kind).toBe('upgrade');
    const status = runChecks(factsFor('status', '1.2.0', null, old('20.10.24+dfsg1', '2.29.7')));
    expect(status.find((c) => c.id === 'container-engine')!.status).toBe('warn');
  });

  it('refuses a folder that is no installation', () => {
    const failed = refusal((f) => {
      f.installation.present = false;
      f.installation.env = null;
    });
    expect(failed[0]).toMatchObject({
      id: 'installation',
      detail: '/opt/service holds no installation (compose.yaml and .env are missing)',
    });
  });
});

describe('checks for other commands', () => {
  it('status runs only read-only checks, and a missing backup is a warning there', () => {
    const results = runChecks(factsFor('status', '1.2.0', null, (f) => (f.installation.backups = [])));
    expect(results.map((r) => r.id)).toEqual([
      'installation',
      'env-file',
      'installed-release',
      'container-engine',
      'running-version',
      'recent-backup',
      'disk-space',
    ]);
    expect(results.find((r) => r.id === 'recent-backup')!.status).toBe('warn');
  });

  it('restore refuses a backup of another version, naming the package it needs', () => {
    const results = runChecks(
      factsFor('restore', '1.3.0', '1.3.0', (f) => {
        f.backup = {
          file: '/b/service-1.2.0-x.tar.gz',
          manifest: {
            format: 'service-backup-v1',
            version: '1.2.0',
            createdAt: '',
            schemaHeads: { controlPlane: null, shared: null, tenant: null },
            parts: [],
            sumsSha256: '',
          },
          error: null,
        };
      }),
    );
    expect(results.find((r) => r.id === 'backup-version')).toMatchObject({
      status: 'fail',
      detail: '/b/service-1.2.0-x.tar.gz was taken on 1.2.0; this package is 1.3.0',
      hint: 'Run the restore from the directory of service-1.2.0-offline.tar.gz.',
    });
  });

  it('install refuses a folder that already holds an installation', () => {
    const results = runChecks(factsFor('install', '1.2.0', '1.3.0'));
    expect(results.find((r) => r.id === 'installation')).toMatchObject({
      status: 'fail',
      detail: '/opt/service already holds an installation',
    });
  });
});
