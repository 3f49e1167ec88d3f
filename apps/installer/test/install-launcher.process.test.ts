// release/install.sh: runs the installer with the host's Node.js, or inside the package's app image
// (checking the package signature with openssl and the image's checksum before loading it).
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTestFolder,
  createTestSigningKey,
  installStandInDocker,
  signTestPackage,
  writeTestPackage,
  type StandInDocker,
  type TestFolder,
} from '@service/release-kit/testing';

const LAUNCHER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../release/install.sh');
const key = createTestSigningKey();

describe('install.sh', () => {
  let folder: TestFolder;
  let docker: StandInDocker;
  let pkg: string;

  beforeEach(async () => {
    folder = createTestFolder('launcher-');
    docker = installStandInDocker(folder.path('docker'));
    pkg = await writeTestPackage(folder, {
      version: '1.3.0',
      signWith: key,
      files: {
        'installer/installer.mjs':
          'console.log(JSON.stringify({ argv: process.argv.slice(2), node: process.version }));\n',
      },
    });
    copyFileSync(LAUNCHER, path.join(pkg, 'install.sh'));
    // The app image archive as `docker save` writes it, so the stand-in can load it.
    folder.write({ 'ctx/Dockerfile': 'FROM node\n', 'ctx/app/apps/api/src/main.js': '' });
    const env = { ...process.env, PATH: docker.path };
    execFileSync('docker', ['build', '--quiet', '--tag', 'service/app:1.3.0', folder.path('ctx')], { env });
    execFileSync('docker', ['save', '--output', path.join(pkg, 'images/app.tar'), 'service/app:1.3.0'], { env });
    writeFileSync(path.join(docker.stateDir, 'images.json'), JSON.stringify({ byId: {}, tags: {} }));
    await signTestPackage(pkg, key);
    docker.clearCalls();
  });
  afterEach(() => folder.remove());

  function launch(
    args: string[],
    env: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        'sh',
        [path.join(pkg, 'install.sh'), ...args],
        { cwd: pkg, env: { PATH: docker.path, HOME: folder.dir, ...env } },
        (err, stdout, stderr) => resolve({ code: err ? (err.code as number) : 0, stdout, stderr }),
      );
    });
  }

  it('checks the signature and the installer, then runs it with the host Node.js when it is recent enough', async () => {
    const run = await launch(['status', '--home', folder.path('home')], {
      SERVICE_INSTALLER_TRUSTED_KEYS: key.publicBase64,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ argv: ['status', '--home', folder.path('home')], node: process.version });
    expect(docker.calls()).toEqual([]);
  });

  it('runs nothing of a package whose signature or installer does not check out, on the host Node.js path too', async () => {
    const foreign = await launch(['status'], { SERVICE_INSTALLER_TRUSTED_KEYS: createTestSigningKey().publicBase64 });
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toBe(
      'error: SHA256SUMS does not match its signature by any trusted key\nhint: Do not ' +
        'use this package. Get it again from the vendor.\n',
    );
    expect(foreign.stdout).toBe('');
    writeFileSync(path.join(pkg, 'installer/installer.mjs'), "console.log('tampered');\n");
    const tampered = await launch(['status'], { SERVICE_INSTALLER_TRUSTED_KEYS: key.publicBase64 });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toBe(
      'error: installer/installer.mjs does not match SHA256SUMS\nhint: Do not use this package. Get it again from the vendor.\n',
    );
    expect(tampered.stdout).toBe('');
  });

  it('needs openssl 3 to check the signature, and says so', async () => {
    const bin = folder.path('no-openssl');
    mkdirSync(bin);
    for (const tool of [
      'sh',
      'sed',
      'tr',
      'grep',
      'mktemp',
      'base64',
      'cat',
      'awk',
      'sha256sum',
      'rm',
      'dirname',
      'head',
    ])
      symlinkSync(
        execFileSync('sh', ['-c', `command -v ${tool}`])
          .toString()
          .trim(),
        path.join(bin, tool),
      );
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const missing = await launch(['status'], { PATH: bin, SERVICE_INSTALLER_TRUSTED_KEYS: key.publicBase64 });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'error: openssl is needed to check the package signature before anything of the package runs\n' +
        'hint: Install openssl (3.0 or newer), then run ./install.sh again.\n',
    );
    writeFileSync(path.join(bin, 'openssl'), '#!/bin/sh\necho "OpenSSL 1.1.1w  11 Sep 2023"\n', { mode: 0o755 });
    const old = await launch(['status'], { PATH: bin, SERVICE_INSTALLER_TRUSTED_KEYS: key.publicBase64 });
    expect(old.stderr).toMatch(
      /^error: openssl 3\.0 or newer is needed .*\(this host has: OpenSSL 1\.1\.1w {2}11 Sep 2023\)\n/,
    );
  });

  it(
    'otherwise checks the signature and the image, loads it, and runs the installer ' +
      'inside it with the installation and the Docker socket',
    async () => {
      const home = folder.path('home');
      const run = await launch(['upgrade', '--home', home, '--yes'], {
        SERVICE_INSTALLER_USE_IMAGE: '1',
        SERVICE_INSTALLER_TRUSTED_KEYS: key.publicBase64,
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const calls = docker.commandLines();
      expect(calls[0]).toBe('image inspect service/app:1.3.0');
      expect(calls[1]).toBe(`load -i ${pkg}/images/app.tar`);
      expect(calls[2]).toBe(
        `run --rm -i --user 0:0 --pid host --uts host -v ` +
          `/var/run/docker.sock:/var/run/docker.sock -v ` +
          `${docker.binDir}/docker:/usr/local/bin/docker:ro -v ${pkg}:${pkg}:ro -v ` +
          `${home}:${home} -w ${pkg} -e SERVICE_INSTALLER_IN_IMAGE=1 -e ` +
          `SERVICE_INSTALLER_TRUSTED_KEYS=${key.publicBase64} -e TERM=dumb --entrypoint ` +
          `node service/app:1.3.0 ${pkg}/installer/installer.mjs upgrade --home ${home} ` +
          `--yes`,
      );
    },
  );

  it('refuses to load the image of a package signed with an unknown key', async () => {
    const run = await launch(['status'], {
      SERVICE_INSTALLER_USE_IMAGE: '1',
      SERVICE_INSTALLER_TRUSTED_KEYS: createTestSigningKey().publicBase64,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: SHA256SUMS does not match its signature by any trusted key\nhint: Do not ' +
        'use this package. Get it again from the vendor.\n',
    );
    expect(docker.commandLines()).toEqual([]);
  });

  it('refuses to load an app image that does not match SHA256SUMS', async () => {
    writeFileSync(
      path.join(pkg, 'images/app.tar'),
      Buffer.concat([readFileSync(path.join(pkg, 'images/app.tar')), Buffer.from('x')]),
    );
    const run = await launch(['status'], {
      SERVICE_INSTALLER_USE_IMAGE: '1',
      SERVICE_INSTALLER_TRUSTED_KEYS: key.publicBase64,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/error: images\/app\.tar does not match SHA256SUMS\n/);
    expect(docker.commandLines()).toEqual(['image inspect service/app:1.3.0']);
  });

  it('refuses an unsigned package', async () => {
    execFileSync('rm', [path.join(pkg, 'SHA256SUMS.sig')]);
    const run = await launch(['status'], { SERVICE_INSTALLER_USE_IMAGE: '1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: the package is not signed: SHA256SUMS.sig is missing\nhint: Use only packages signed by the vendor.\n',
    );
  });
});
