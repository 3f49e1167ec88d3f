// The Docker adapter against the stand-in `docker` (INSTALLER.md "How it is tested", 2): the exact
// commands, in their order, and failures of the engine or of a stage of a pipe.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTestFolder,
  installStandInDocker,
  type StandInDocker,
  type TestFolder,
} from '@service/release-kit/testing';
import type { ManifestImage } from '@service/release-kit';
import { DockerRuntime } from '../src/runtime/docker-runtime.ts';

describe('DockerRuntime', () => {
  let folder: TestFolder;
  let docker: StandInDocker;
  let runtime: DockerRuntime;
  let home: string;
  let compose: string;
  const log: string[] = [];

  beforeEach(() => {
    folder = createTestFolder('docker-runtime-');
    docker = installStandInDocker(folder.path('docker'));
    home = folder.path('home');
    folder.write({
      'home/compose.yaml': 'name: service\n',
      'home/.env': 'SERVICE_VERSION=1.2.0\n',
      'ctx/Dockerfile': 'FROM node\n',
      'ctx/app/main.js': 'ok',
    });
    runtime = new DockerRuntime({ home, env: { ...process.env, PATH: docker.path }, log: (l) => log.push(l) });
    compose =
      `compose --project-directory ${home} --project-name service --file ` +
      `${home}/compose.yaml --env-file ${home}/.env`;
  });
  afterEach(() => folder.remove());

  /** An image archive as `docker save` writes it, made with the stand-in, then forgotten by it. */
  function savedImage(): { archive: string; image: ManifestImage } {
    const env = { ...process.env, PATH: docker.path };
    execFileSync('docker', ['build', '--quiet', '--tag', 'service/app:1.3.0', folder.path('ctx')], { env });
    const id = execFileSync('docker', ['image', 'inspect', '--format', '{{.Id}}', 'service/app:1.3.0'], { env })
      .toString()
      .trim();
    const archive = folder.path('app.tar');
    execFileSync('docker', ['save', '--output', archive, 'service/app:1.3.0'], { env });
    writeFileSync(path.join(docker.stateDir, 'images.json'), JSON.stringify({ byId: {}, tags: {} }));
    docker.clearCalls();
    return {
      archive,
      image: {
        role: 'app',
        name: 'service/app',
        tag: '1.3.0',
        digest: id,
        archive: 'images/app.tar',
        bytes: readFileSync(archive).length,
      },
    };
  }

  it('checks the engine and the compose plugin', async () => {
    expect(await runtime.checkEngine()).toEqual({
      ok: true,
      detail: 'Docker 27.3.1-stand-in with compose 2.29.7-stand-in',
      versions: { engine: '27.3.1-stand-in', compose: '2.29.7-stand-in' },
    });
    expect(docker.commandLines()).toEqual(['version --format {{.Server.Version}}', 'compose version --short']);
  });

  it('says what is missing when the engine does not answer', async () => {
    docker.setAnswers([
      {
        match: '^version',
        stderr: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n',
        code: 1,
      },
    ]);
    expect(await runtime.checkEngine()).toEqual({
      ok: false,
      detail:
        'Docker does not answer: Cannot connect to the Docker daemon at ' +
        'unix:///var/run/docker.sock. Is the docker daemon running?',
      versions: null,
    });
  });

  it('loads an image from its archive on stdin, with progress, then checks its id', async () => {
    const { archive, image } = savedImage();
    const progress: number[] = [];
    expect(await runtime.hasImage(image)).toBe(false);
    await runtime.loadImage(archive, image, (done) => progress.push(done));
    expect(progress[progress.length - 1]).toBe(image.bytes);
    expect(docker.commandLines()).toEqual([
      'image inspect --format {{.Id}} service/app:1.3.0',
      'load',
      'image inspect --format {{.Id}} service/app:1.3.0',
    ]);
  });

  it('refuses an archive that does not hold the image the manifest names', async () => {
    const { archive, image } = savedImage();
    await expect(
      runtime.loadImage(archive, { ...image, digest: `sha256:${'0'.repeat(64)}` }, () => {}),
    ).rejects.toThrow(/Docker has no service\/app:1\.3\.0 with the id sha256:0000/);
  });

  it('runs compose with the installation files, adding the operator override only when there is one', async () => {
    await runtime.up();
    folder.write({ 'home/compose.override.yaml': 'services: {}\n' });
    await runtime.up();
    await runtime.startDatabase();
    await runtime.stopApp();
    await runtime.stopAll();
    const withOverride = compose.replace(`--env-file`, `--file ${home}/compose.override.yaml --env-file`);
    expect(docker.commandLines()).toEqual([
      `${compose} up --detach --remove-orphans`,
      `${withOverride} up --detach --remove-orphans`,
      `${withOverride} up --detach --wait db`,
      `${withOverride} stop app`,
      `${withOverride} stop`,
    ]);
  });

  it('hands the first start its once-only settings through the environment, never on the command line', async () => {
    await runtime.up({ firstStartEnv: { SERVICE_ADMIN_PASSWORD: 'first-password-123' } });
    await runtime.up();
    const [first, second] = docker.calls().slice(-2);
    expect(first!.serviceEnv).toContain('SERVICE_ADMIN_PASSWORD');
    expect(first!.args.join(' ')).not.toContain('first-password-123');
    expect(second!.serviceEnv).not.toContain('SERVICE_ADMIN_PASSWORD');
  });

  it('reads container states and probes the service from inside the app container', async () => {
    await runtime.up();
    docker.clearCalls();
    expect(await runtime.containers()).toEqual([
      { service: 'files', state: 'exited', health: '' },
      { service: 'db', state: 'running', health: 'healthy' },
      { service: 'app', state: 'running', health: 'healthy' },
      { service: 'proxy', state: 'running', health: 'healthy' },
    ]);
    expect(await runtime.appState()).toEqual({ state: 'running', exitCode: null });
    docker.setAnswers([
      {
        match: 'exec -T app node -e .* /api/version$',
        stdout: '{"status":200,"body":"{\\"version\\":\\"1.2.0\\"}"}\n',
      },
    ]);
    expect(await runtime.probe('/api/version')).toEqual({ status: 200, body: '{"version":"1.2.0"}' });
    const lines = docker.commandLines();
    expect(lines[0]).toBe(`${compose} ps --all --format json`);
    expect(lines[1]).toBe(`${compose} ps --all --format json app`);
    expect(lines[2]).toMatch(
      new RegExp(
        `^${compose.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} exec -T app node -e ` +
          `fetch\\('http://127\\.0\\.0\\.1:3000'\\+process\\.argv\\[1\\].* /api/version$`,
      ),
    );
  });

  it('notices a crashed app and its exit code', async () => {
    docker.setAnswers([
      { match: 'ps --all --format json app$', stdout: '{"Service":"app","State":"exited","ExitCode":3}\n' },
    ]);
    expect(await runtime.appState()).toEqual({ state: 'exited', exitCode: 3 });
  });

  it('dumps a database inside the database container, lists the dump, and restores into a new database', async () => {
    await runtime.up();
    docker.clearCalls();
    const file = folder.path('tenant.dump');
    await runtime.dumpDatabase('service_tenant', file, () => {});
    expect(readFileSync(file, 'utf8')).toBe('PGDMP stand-in dump of service_tenant\n');
    expect(await runtime.listDump(file)).toBe(0);
    await runtime.restoreDump(file, 'service_tenant_restore_1');
    await runtime.sql('postgres', 'begin;\nalter database a rename to b;\ncommit');
    expect(docker.commandLines()).toEqual([
      `${compose} exec -T db pg_dump --format=custom --username service --dbname service_tenant`,
      `${compose} exec -T db pg_restore --list`,
      `${compose} exec -T db createdb --username service service_tenant_restore_1`,
      `${compose} exec -T db pg_restore --exit-on-error --no-owner --no-privileges ` +
        `--username service --dbname service_tenant_restore_1`,
      `${compose} exec -T db psql --no-align --tuples-only --set ON_ERROR_STOP=1 ` +
        `--username service --dbname postgres --command begin --command alter database a ` +
        `rename to b --command commit`,
    ]);
  });

  it('fails a dump when pg_dump fails inside the container, naming its error', async () => {
    docker.setAnswers([
      {
        match: 'pg_dump',
        stdout: 'PGDMP partial',
        stderr: 'pg_dump: error: connection to server failed: FATAL:  database "service_tenant" does not exist\n',
        code: 1,
      },
    ]);
    await expect(runtime.dumpDatabase('service_tenant', folder.path('t.dump'), () => {})).rejects.toThrow(
      'could not dump the database service_tenant: pg_dump: error: connection to server ' +
        'failed: FATAL:  database "service_tenant" does not exist',
    );
  });

  it('fails listing a dump that is not one', async () => {
    await runtime.up();
    const file = folder.path('bad.dump');
    writeFileSync(file, 'not a dump');
    await expect(runtime.listDump(file)).rejects.toThrow(
      'could not read the dump bad.dump: pg_restore: error: input file does not appear to be a valid archive',
    );
  });

  it(
    'asks the app to import the library through the admin command, in the running ' + 'container or a one-off one',
    async () => {
      await runtime.up();
      await runtime.requestGlobalsImport();
      docker.setAnswers([
        { match: 'ps --all --format json app$', stdout: '{"Service":"app","State":"exited","ExitCode":0}\n' },
      ]);
      await runtime.requestGlobalsImport();
      const lines = docker.commandLines().filter((l) => l.includes('admin.js'));
      expect(lines).toEqual([
        `${compose} exec -T app node apps/api/src/admin.js request-globals-import`,
        `${compose} run --rm --no-deps app node apps/api/src/admin.js request-globals-import`,
      ]);
    },
  );
});
