#!/usr/bin/env node
// A stand-in for the `docker` command, for tests on machines without a container engine
// (INSTALLER.md "How it is tested"). Put first on PATH by installStandInDocker(). It records
// every call (argv, cwd) in $STAND_IN_DOCKER_STATE/calls.jsonl and answers like the real CLI for
// what the release tool and the installer use: version, build, pull, image inspect, save, load,
// and `compose` (up, ps, stop, start, restart, exec, run, down, version).
//
// Images are real `docker save` archives (manifest.json, OCI blobs): `build` makes one layer from
// the context's app/ folder (what the release Dockerfile copies to /app), `pull` makes a small
// synthetic image per reference. Everything is deterministic: the same input, the same bytes.
//
// $STAND_IN_DOCKER_STATE/answers.json (optional) is a list of { match, stdout, stderr, code }:
// the first entry whose `match` (a regular expression) matches the arguments joined by spaces
// answers instead, which is how tests make a command fail.
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tar from 'tar';

const state = process.env.STAND_IN_DOCKER_STATE;
if (!state) {
  process.stderr.write('stand-in docker: STAND_IN_DOCKER_STATE is not set\n');
  process.exit(125);
}
mkdirSync(path.join(state, 'blobs'), { recursive: true });
const args = process.argv.slice(2);
// Names (never values) of the SERVICE_* variables the call got: tests check what reaches compose.
const serviceEnv = Object.keys(process.env)
  .filter((k) => k.startsWith('SERVICE_'))
  .sort();
appendFileSync(path.join(state, 'calls.jsonl'), `${JSON.stringify({ args, cwd: process.cwd(), serviceEnv })}\n`);

const EPOCH = new Date(0);
const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');
const out = (text) => process.stdout.write(text);
const fail = (message, code = 1) => {
  process.stderr.write(`${message}\n`);
  process.exit(code);
};

function readJson(file, fallback) {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : fallback;
}
const imagesFile = path.join(state, 'images.json');
const images = readJson(imagesFile, { byId: {}, tags: {} });
const saveImages = () => writeFileSync(imagesFile, JSON.stringify(images, null, 2));
const composeFile = path.join(state, 'compose.json');
const compose = readJson(composeFile, { services: {} });
const saveCompose = () => writeFileSync(composeFile, JSON.stringify(compose, null, 2));

const normalize = (ref) => (ref.includes(':') || ref.startsWith('sha256:') ? ref : `${ref}:latest`);
const idOf = (ref) =>
  ref.startsWith('sha256:') && images.byId[ref.slice(7)] ? ref.slice(7) : images.tags[normalize(ref)];

function storeBlob(bytes) {
  const digest = sha(bytes);
  writeFileSync(path.join(state, 'blobs', digest), bytes);
  return digest;
}

/** A tar of `files` (relative paths under `root`), sorted, with fixed times and owners. */
async function deterministicTar(root, files) {
  for (const f of files) utimesSync(path.join(root, f), EPOCH, EPOCH);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'stand-in-tar-')), 'out.tar');
  await tar.c({ cwd: root, file, portable: true, noDirRecurse: true, mtime: EPOCH }, files);
  const bytes = readFileSync(file);
  rmSync(path.dirname(file), { recursive: true, force: true });
  return bytes;
}

function listAll(root, relative = '') {
  const result = [];
  for (const name of readdirSync(path.join(root, relative)).sort()) {
    const rel = relative === '' ? name : `${relative}/${name}`;
    result.push(rel);
    if (statSync(path.join(root, rel)).isDirectory()) result.push(...listAll(root, rel));
  }
  return result;
}

function registerImage(config, layerDigest, refs) {
  const configBytes = Buffer.from(JSON.stringify(config));
  const id = storeBlob(configBytes);
  images.byId[id] = { layer: layerDigest, size: statSync(path.join(state, 'blobs', layerDigest)).size };
  for (const ref of refs) images.tags[normalize(ref)] = id;
  saveImages();
  return id;
}

function option(names, list = args) {
  const values = [];
  for (let i = 0; i < list.length; i++) {
    for (const name of names) {
      if (list[i] === name) values.push(list[++i]);
      else if (list[i].startsWith(`${name}=`)) values.push(list[i].slice(name.length + 1));
    }
  }
  return values;
}

// ---- answers chosen by the test ------------------------------------------------------------------
const answers = readJson(path.join(state, 'answers.json'), []);
const joined = args.join(' ');
for (const answer of answers) {
  if (new RegExp(answer.match).test(joined)) {
    if (answer.stdout) out(answer.stdout);
    if (answer.stderr) process.stderr.write(answer.stderr);
    process.exit(answer.code ?? 0);
  }
}

// ---- commands ----------------------------------------------------------------------------------
const [command, ...rest] = args;
switch (command) {
  case 'version':
    if (joined.includes('Server.Version')) out('27.3.1-stand-in\n');
    else out('Client: stand-in\nServer: stand-in\n Version: 27.3.1-stand-in\n');
    break;
  case 'info':
    out('Server Version: 27.3.1-stand-in\n');
    break;
  case 'build':
    await buildImage(rest);
    break;
  case 'pull':
    pullImage(rest[rest.length - 1]);
    break;
  case 'image':
    if (rest[0] === 'inspect') inspect(rest.slice(1));
    else if (rest[0] === 'ls') listImages();
    else fail(`stand-in docker: image ${rest[0]} is not emulated`, 125);
    break;
  case 'inspect':
    inspect(rest);
    break;
  case 'save':
    await saveImage(rest);
    break;
  case 'load':
    await loadImage(rest);
    break;
  case 'compose':
    composeCommand(rest);
    break;
  case 'run':
    break;
  default:
    fail(`stand-in docker: ${command} is not emulated`, 125);
}

async function buildImage(list) {
  const context = list[list.length - 1];
  const tags = option(['-t', '--tag'], list);
  const dockerfile = option(['-f', '--file'], list)[0] ?? path.join(context, 'Dockerfile');
  if (!existsSync(dockerfile))
    fail(`ERROR: failed to solve: failed to read dockerfile: open ${dockerfile}: no such file or directory`);
  const appDir = path.join(context, 'app');
  if (!existsSync(appDir)) fail('ERROR: failed to solve: failed to compute cache key: "/app" not found');
  const layer = await deterministicTar(context, listAll(context, 'app'));
  const layerDigest = storeBlob(layer);
  const config = {
    architecture: 'amd64',
    os: 'linux',
    config: { User: 'node', WorkingDir: '/app', Cmd: ['node', 'apps/api/src/main.js'], Env: ['NODE_ENV=production'] },
    rootfs: { type: 'layers', diff_ids: [`sha256:${layerDigest}`] },
    history: [{ created_by: `stand-in build of ${path.basename(dockerfile)}`, comment: sha(readFileSync(dockerfile)) }],
  };
  const id = registerImage(config, layerDigest, tags);
  out(`sha256:${id}\n`);
}

function pullImage(ref) {
  const root = mkdtempSync(path.join(tmpdir(), 'stand-in-pull-'));
  const marker = `stand-in/${normalize(ref).replace(/[/:]/g, '_')}`;
  mkdirSync(path.join(root, 'stand-in'));
  writeFileSync(path.join(root, marker), `${normalize(ref)}\n`);
  return deterministicTar(root, ['stand-in', marker]).then((layer) => {
    rmSync(root, { recursive: true, force: true });
    const layerDigest = storeBlob(layer);
    registerImage(
      {
        architecture: 'amd64',
        os: 'linux',
        config: {},
        rootfs: { type: 'layers', diff_ids: [`sha256:${layerDigest}`] },
        history: [{ created_by: `stand-in image ${normalize(ref)}` }],
      },
      layerDigest,
      [ref],
    );
    out(
      `${normalize(ref).split(':')[1]}: Pulling from ${ref.split(':')[0]}\nStatus: ` +
        `Downloaded newer image for ${normalize(ref)}\n`,
    );
  });
}

function inspect(list) {
  const format = option(['--format', '-f'], list)[0];
  const refs = list.filter((a, i) => !a.startsWith('-') && !['--format', '-f'].includes(list[i - 1]));
  for (const ref of refs) {
    const id = idOf(ref);
    if (!id) fail(`Error response from daemon: No such image: ${ref}`);
    if (format === '{{.Id}}') out(`sha256:${id}\n`);
    else if (format === '{{.Size}}') out(`${images.byId[id].size}\n`);
    else
      out(
        `${JSON.stringify(
          [
            {
              Id: `sha256:${id}`,
              RepoTags: Object.entries(images.tags)
                .filter(([, v]) => v === id)
                .map(([k]) => k),
            },
          ],
          null,
          4,
        )}\n`,
      );
  }
}

function listImages() {
  for (const [ref, id] of Object.entries(images.tags).sort()) out(`${ref}\tsha256:${id}\n`);
}

async function saveImage(list) {
  const file = option(['-o', '--output'], list)[0];
  const refs = list.filter((a, i) => !a.startsWith('-') && !['-o', '--output'].includes(list[i - 1]));
  if (!file) fail('stand-in docker: save writes to a file only (-o)', 125);
  const root = mkdtempSync(path.join(tmpdir(), 'stand-in-save-'));
  mkdirSync(path.join(root, 'blobs/sha256'), { recursive: true });
  const manifest = [];
  for (const ref of refs) {
    const id = idOf(ref);
    if (!id) fail(`Error response from daemon: reference does not exist: ${ref}`);
    const { layer } = images.byId[id];
    cpSync(path.join(state, 'blobs', id), path.join(root, 'blobs/sha256', id));
    cpSync(path.join(state, 'blobs', layer), path.join(root, 'blobs/sha256', layer));
    manifest.push({ Config: `blobs/sha256/${id}`, RepoTags: [normalize(ref)], Layers: [`blobs/sha256/${layer}`] });
  }
  writeFileSync(path.join(root, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(path.join(root, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
  const bytes = await deterministicTar(root, listAll(root));
  rmSync(root, { recursive: true, force: true });
  writeFileSync(file, bytes);
}

async function loadImage(list) {
  let file = option(['-i', '--input'], list)[0];
  const root = mkdtempSync(path.join(tmpdir(), 'stand-in-load-'));
  if (!file) {
    // Like the real CLI: without -i the archive comes on stdin.
    file = path.join(root, '.stdin.tar');
    writeFileSync(file, readFileSync(0));
  }
  if (!existsSync(file)) fail(`open ${file}: no such file or directory`);
  try {
    await tar.x({ file, cwd: root, strict: true, filter: (p) => p !== '.stdin.tar' });
  } catch {
    fail('Error processing tar file(exit status 1): unexpected EOF');
  }
  if (!existsSync(path.join(root, 'manifest.json')))
    fail('Error: open /var/lib/docker/tmp/docker-import/manifest.json: no such file or directory');
  for (const entry of JSON.parse(readFileSync(path.join(root, 'manifest.json'), 'utf8'))) {
    const configBytes = readFileSync(path.join(root, entry.Config));
    const id = sha(configBytes);
    if (`blobs/sha256/${id}` !== entry.Config) fail(`Error: invalid checksum for image config ${entry.Config}`);
    storeBlob(configBytes);
    const layerDigest = storeBlob(readFileSync(path.join(root, entry.Layers[0])));
    images.byId[id] = { layer: layerDigest, size: statSync(path.join(state, 'blobs', layerDigest)).size };
    for (const ref of entry.RepoTags) {
      images.tags[ref] = id;
      if (!list.includes('-q')) out(`Loaded image: ${ref}\n`);
    }
  }
  saveImages();
  rmSync(root, { recursive: true, force: true });
}

function composeCommand(list) {
  // Global compose options come before the subcommand.
  let i = 0;
  const globals = [];
  while (i < list.length && list[i].startsWith('-')) {
    globals.push(list[i]);
    if (
      [
        '-f',
        '--file',
        '--project-directory',
        '-p',
        '--project-name',
        '--env-file',
        '--profile',
        '--ansi',
        '--progress',
      ].includes(list[i])
    )
      globals.push(list[++i]);
    i++;
  }
  const [sub, ...subArgs] = list.slice(i);
  const services = subArgs.filter((a) => !a.startsWith('-'));
  const all = ['files', 'db', 'app', 'proxy'];
  const running = (names) => (names.length > 0 ? names : all);
  switch (sub) {
    case 'version':
      out('2.29.7-stand-in\n');
      break;
    case 'up':
    case 'start':
    case 'restart':
      for (const name of running(services))
        compose.services[name] = {
          state: name === 'files' ? 'exited' : 'running',
          since: compose.services[name]?.since ?? 0,
        };
      saveCompose();
      break;
    case 'stop':
    case 'down':
      for (const name of running(services)) compose.services[name] = { state: 'exited' };
      saveCompose();
      break;
    case 'ps':
      for (const name of all) {
        const s = compose.services[name];
        if (!s) continue;
        out(
          `${JSON.stringify({ Service: name, Name: `service-${name}-1`, State: s.state, Health: s.state === 'running' && name !== 'files' ? 'healthy' : '', ExitCode: 0 })}\n`,
        );
      }
      break;
    case 'exec':
    case 'run':
      execInService(subArgs);
      break;
    case 'logs':
      break;
    default:
      fail(`stand-in docker: compose ${sub} is not emulated`, 125);
  }
}

function execInService(list) {
  const words = list.filter((a) => a !== '-T' && a !== '--rm' && a !== '-i' && a !== '--no-deps');
  const [service, program, ...programArgs] = words.filter(
    (a, i) => !(words[i - 1] === '-e' || a === '-e' || words[i - 1] === '--user' || a === '--user'),
  );
  if (compose.services[service]?.state !== 'running') {
    if (list[0] !== '--rm' && !list.includes('--rm')) fail(`service "${service}" is not running`);
  }
  if (program === 'pg_dump') {
    const database = programArgs[programArgs.length - 1];
    out(`PGDMP stand-in dump of ${database}\n`);
  } else if (program === 'pg_restore' && programArgs.includes('--list')) {
    const input = readFileSync(0);
    if (!input.subarray(0, 5).equals(Buffer.from('PGDMP')))
      fail('pg_restore: error: input file does not appear to be a valid archive');
    out(';\n; Archive created by the stand-in\n;\n');
  } else if (program === 'pg_restore') {
    readFileSync(0);
  } else if (program === 'psql' || program === 'createdb' || program === 'dropdb') {
    if (!process.stdin.isTTY) {
      try {
        readFileSync(0);
      } catch {
        // no input
      }
    }
  } else if (program === 'node') {
    out('{"status":"ok"}\n');
  }
}
