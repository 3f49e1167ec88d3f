import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
// Why inside the repository: the script resolves openapi-fetch from the workspace's node_modules.
const workDir = path.join(repoRoot, 'tmp', `generated-client-${process.pid}`);

let app: TestApp;
let actor: Actor;
let clientId: string;

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'member' });
  clientId = (await creator.api.post('/clients', { name: 'Generated Client Corp' })).body.id;
  actor = await createActor(app, { role: 'member', clientIds: [clientId] });
  mkdirSync(workDir, { recursive: true });
});
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await app?.stop();
});

describe('a client generated from the OpenAPI document', () => {
  it('compiles against a real script without casts and works against the service, retests included', {
    timeout: 120_000,
  }, async () => {
    const docResponse = await fetch(`${app.url}/api/rest-docs/openapi`);
    expect(docResponse.status).toBe(200);
    const doc = (await docResponse.json()) as Parameters<typeof openapiTS>[0];
    const blob = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));
    const ast = await openapiTS(doc, {
      transform: (schema) => ((schema as { format?: string }).format === 'binary' ? blob : undefined),
    });
    writeFileSync(path.join(workDir, 'api.ts'), astToString(ast));
    copyFileSync(path.join(here, 'fixtures/generated-client-script.ts.txt'), path.join(workDir, 'script.ts'));
    writeFileSync(
      path.join(workDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          allowImportingTsExtensions: true,
          types: ['node'],
          lib: ['ES2023', 'DOM'],
        },
        files: ['script.ts'],
      }),
    );
    const tsc = await run(process.execPath, [
      path.join(repoRoot, 'node_modules/typescript/bin/tsc'),
      '-p',
      workDir,
    ]).catch((err: { stdout?: string }) => err);
    expect('stdout' in tsc ? tsc.stdout : '', 'the script must compile against the generated types').toBe('');

    const scanFile = JSON.stringify({
      'template-id': 'tech-detect',
      info: { name: 'Technology detected', severity: 'low' },
      host: 'a.example',
      'matched-at': 'https://a.example/',
    });
    // The re-scan: the same origin, the technology no longer detected, another check first seen.
    const rescanFile = JSON.stringify({
      'template-id': 'http-missing-security-headers',
      'matcher-name': 'strict-transport-security',
      info: { name: 'HTTP Missing Security Headers', severity: 'info' },
      host: 'a.example',
      'matched-at': 'https://a.example/',
    });
    const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(workDir, 'script.ts')], {
      cwd: workDir,
      env: {
        ...process.env,
        BASE_URL: app.url,
        API_KEY: actor.key,
        CLIENT_ID: clientId,
        SCAN_FILE: scanFile,
        RESCAN_FILE: rescanFile,
      },
    });
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({
      sameFinding: true,
      replayed: 'true',
      evidenceType: 'image/png',
      imported: 1,
      pagedTitles: 2,
      conflictCode: 'conflict',
      retestDecisions: ['new', 'resolved'],
      reviewed: 'resolved by person',
      rounds: ['retest 1'],
    });
  });
});
