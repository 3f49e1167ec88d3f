// The published OpenAPI document, linted by Redocly's own command-line tool (a process of its own).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from './support/http-client.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let app: TestApp;
let doc: unknown;
beforeAll(async () => {
  app = await startTestApp();
  const res = await httpClient(app.url).get('/api/rest-docs/openapi');
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await app?.stop();
});

describe('OpenAPI document', () => {
  it('lints clean with Redocly at its recommended rules: 0 errors, 0 warnings', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
    try {
      const file = path.join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const cli = path.join(ROOT, 'node_modules/.bin/redocly');
      // Why these variables: the linter must not phone home (telemetry, update checks) from a test.
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
      const output = await promisify(execFile)(cli, ['lint', '--extends', 'recommended', '--format', 'json', file], {
        cwd: dir,
        env,
        maxBuffer: 64 * 1024 * 1024,
      }).then(
        (r) => r.stdout,
        (err: { stdout?: string }) => err.stdout ?? '',
      );
      const report = JSON.parse(output.slice(output.indexOf('{'))) as {
        totals: { errors: number; warnings: number };
        problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
      };
      const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
