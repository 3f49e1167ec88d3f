import type { PackageManifest } from '@service/release-kit';
import { testImages } from '@service/release-kit/testing';
import type { Facts } from '../checks/preflight-check.ts';
import { parseEnvFile } from '../install-dir/env-file.ts';

export const NOW = new Date('2026-11-23T10:00:00Z');

export function manifestOf(version: string, minUpgradeFrom = '1.0.0'): PackageManifest {
  return {
    format: 'service-package-manifest-v1',
    product: 'service',
    version,
    minUpgradeFrom,
    createdAt: '2026-11-20T00:00:00.000Z',
    sourceSha: 'abc',
    images: testImages(version).map(({ content: _c, ...i }) => i),
    library: { version: 'lib', items: 3 },
    schemaHeads: { controlPlane: 'cp1', shared: 'sh1', tenant: 'tn1' },
  };
}

/**
 * A healthy installation of `installed` with a fresh backup, and a verified package of `offered`: every check passes.
 */
export function factsFor(
  command: Facts['command'],
  installed: string,
  offered: string | null,
  change: (f: Facts) => void = () => {},
): Facts {
  const facts: Facts = {
    command,
    now: NOW,
    home: '/opt/service',
    installation: {
      present: true,
      env: parseEnvFile(`SERVICE_VERSION=${installed}\nPOSTGRES_PASSWORD=x\n`),
      release: { manifest: manifestOf(installed), signer: { keyId: 'a006e716', vendor: true }, problem: null },
      runningVersion: installed,
      backups: [
        {
          file: `/opt/service/backups/service-${installed}-20261123T080000Z.tar.gz`,
          version: installed,
          createdAt: new Date('2026-11-23T08:00:00Z'),
          bytes: 1000,
        },
      ],
    },
    engine: {
      ok: true,
      detail: 'Docker 27.3.1 with compose 2.29.7',
      versions: { engine: '27.3.1', compose: '2.29.7' },
    },
    disks: [{ dir: '/opt/service', freeBytes: 10 * 1024 ** 3, neededBytes: 1024 ** 3, purpose: 'loading the images' }],
    package:
      offered === null
        ? null
        : {
            dir: `/tmp/service-${offered}`,
            verified: {
              dir: `/tmp/service-${offered}`,
              manifest: manifestOf(offered),
              signer: { keyId: 'a006e716', vendor: true },
              manifestText: '{}',
            },
            error: null,
          },
    backup: null,
  };
  change(facts);
  return facts;
}
