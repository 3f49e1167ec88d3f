// Clients generated from the published OpenAPI document by two common generators, used the way a
// consumer would: each compiles a real workflow (creates, an idempotent retry, uploads of evidence,
// a Word template, a scanner file and a Markdown file) with tsc --strict and no cast, then runs it
// against the service.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient as generateHeyApiClient } from '@hey-api/openapi-ts';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
// Why inside the repository: the scripts resolve openapi-fetch from the workspace's node_modules.
const workDir = path.join(repoRoot, 'tmp', `generated-client-${process.pid}`);
const TEMPLATE_FILE = path.join(repoRoot, 'library/report-styles/word-template-example.docx');
const SCAN_FILE = JSON.stringify({
  'template-id': 'tech-detect',
  info: { name: 'Technology detected', severity: 'low' },
  host: 'a.example',
  'matched-at': 'https://a.example/',
});
// The re-scan of a retest: the same origin, the technology no longer detected, another check first seen.
const RESCAN_FILE = JSON.stringify({
  'template-id': 'http-missing-security-headers',
  'matcher-name': 'strict-transport-security',
  info: { name: 'HTTP Missing Security Headers', severity: 'info' },
  host: 'a.example',
  'matched-at': 'https://a.example/',
});

let app: TestApp;
let actor: Actor;
let clientId: string;
let doc: OpenAPI3;

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'member' });
  clientId = (await creator.api.post('/clients', { name: 'Generated Client Corp' })).body.id;
  actor = await createActor(app, { role: 'member', clientIds: [clientId] });
  mkdirSync(workDir, { recursive: true });
  const docResponse = await fetch(`${app.url}/api/rest-docs/openapi`);
  expect(docResponse.status).toBe(200);
  doc = (await docResponse.json()) as OpenAPI3;
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
      files: ['script.ts', 'heyapi-script.ts'],
    }),
  );
});
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await app?.stop();
});

/** tsc --strict over the work directory: its output, empty when everything compiles. */
async function compile(): Promise<string> {
  const tsc = await run(process.execPath, [
    path.join(repoRoot, 'node_modules/typescript/bin/tsc'),
    '-p',
    workDir,
  ]).catch((err: { stdout?: string }) => err);
  return 'stdout' in tsc ? String(tsc.stdout) : '';
}

/** The names a generated module exports (`export const x`, `export { a, type B }`, `export type C`). */
function exportedNames(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const declared = [...source.matchAll(/^export (?:const|function|type|interface|class) (\w+)/gm)].map((m) => m[1]!);
  const listed = [...source.matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((m) =>
    m[1]!.split(',').map(
      (name) =>
        name
          .trim()
          .replace(/^type /, '')
          .split(/\s+as\s+/)
          .pop()!,
    ),
  );
  return [...declared, ...listed].filter(Boolean);
}

/** Runs a script of the work directory against the service; its last line of output, parsed. */
async function runScript(file: string): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(workDir, file)], {
    cwd: workDir,
    env: {
      ...process.env,
      BASE_URL: app.url,
      API_KEY: actor.key,
      CLIENT_ID: clientId,
      SCAN_FILE,
      RESCAN_FILE,
      TEMPLATE_FILE,
    },
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

describe('clients generated from the OpenAPI document', () => {
  it('compile a whole workflow, uploads and retests included, without casts, and work against the service', {
    timeout: 180_000,
  }, async () => {
    // openapi-typescript, with binary parts as Blob (its documented option for file uploads), and openapi-fetch.
    const blob = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));
    const ast = await openapiTS(doc, {
      transform: (schema) => ((schema as { format?: string }).format === 'binary' ? blob : undefined),
    });
    writeFileSync(path.join(workDir, 'api.ts'), astToString(ast));
    copyFileSync(path.join(here, 'fixtures/generated-client-script.ts.txt'), path.join(workDir, 'script.ts'));
    // @hey-api/openapi-ts with its default plugins: types, the SDK and its fetch client.
    writeFileSync(path.join(workDir, 'openapi.json'), JSON.stringify(doc));
    await generateHeyApiClient({
      input: path.join(workDir, 'openapi.json'),
      output: path.join(workDir, 'hey'),
      logs: { level: 'silent' },
    });
    copyFileSync(
      path.join(here, 'fixtures/generated-client-heyapi-script.ts.txt'),
      path.join(workDir, 'heyapi-script.ts'),
    );

    expect(await compile(), 'the scripts must compile against the generated clients').toBe('');
    // No operation is named like what the generators export themselves (hey-api's `createClient`).
    const own = [
      ...exportedNames(path.join(workDir, 'hey/client/index.ts')),
      ...exportedNames(path.join(workDir, 'hey/client.gen.ts')),
      ...Object.keys(await import('openapi-fetch')),
      'createClient',
    ];
    // The SDK's functions, one per operation (its `Options` type is the generator's own).
    const sdk = [...readFileSync(path.join(workDir, 'hey/sdk.gen.ts'), 'utf8').matchAll(/^export const (\w+)/gm)].map(
      (m) => m[1]!,
    );
    expect(sdk.length).toBeGreaterThan(100);
    expect(sdk.filter((name) => own.includes(name))).toEqual([]);
    const operationIds = Object.values(doc.paths ?? {}).flatMap((item) =>
      Object.values(item ?? {}).flatMap((op) =>
        typeof op === 'object' && op && 'operationId' in op ? [op.operationId] : [],
      ),
    );
    expect(operationIds.filter((id) => own.includes(String(id)))).toEqual([]);

    expect(await runScript('script.ts')).toEqual({
      sameFinding: true,
      replayed: 'true',
      evidenceType: 'image/png',
      imported: 1,
      templateStored: true,
      markdownFindings: 2,
      pagedTitles: 2,
      conflictCode: 'conflict',
      retestDecisions: ['new', 'resolved'],
      reviewed: 'resolved by person',
      rounds: ['retest 1'],
    });
    expect(await runScript('heyapi-script.ts')).toEqual({
      clientName: 'hey-api customer',
      evidenceType: 'image/png',
      imported: 1,
      templateStored: true,
      markdownFindings: 2,
    });
  });
});
