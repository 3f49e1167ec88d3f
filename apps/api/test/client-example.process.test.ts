// docs/examples/import-nessus.ts, run as a consumer runs it (tsx, in a process of its own) against
// the service: a Nessus file into a new report, then the report as Word and PDF documents.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createServiceClient } from '@service/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const EXAMPLE = path.join(repoRoot, 'docs/examples/import-nessus.ts');
// Why: the PDF export converts with LibreOffice; CI installs it (.ci/run).
const officeInstalled = spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0;

/** A small Nessus v2 file: two hosts, two plugins, one of them on both hosts. */
const NESSUS = `<?xml version="1.0" ?>
<NessusClientData_v2>
<Report name="Example scan">
<ReportHost name="10.0.0.5">
<HostProperties><tag name="host-ip">10.0.0.5</tag></HostProperties>
<ReportItem port="445" svc_name="cifs" protocol="tcp" severity="2" pluginID="57608" pluginName="SMB Signing not required" pluginFamily="Misc.">
<synopsis>Signing is not required on the remote SMB server.</synopsis>
<description>Signing is not required on the remote SMB server.</description>
<solution>Enforce message signing in the host's configuration.</solution>
<risk_factor>Medium</risk_factor>
</ReportItem>
<ReportItem port="443" svc_name="www" protocol="tcp" severity="3" pluginID="104743" pluginName="TLS Version 1.0 Protocol Detection" pluginFamily="Service detection">
<synopsis>The remote service encrypts traffic using an older version of TLS.</synopsis>
<description>The remote service accepts connections encrypted using TLS 1.0.</description>
<solution>Enable support for TLS 1.2 and 1.3, and disable support for TLS 1.0.</solution>
<risk_factor>High</risk_factor>
</ReportItem>
</ReportHost>
<ReportHost name="10.0.0.6">
<HostProperties><tag name="host-ip">10.0.0.6</tag></HostProperties>
<ReportItem port="445" svc_name="cifs" protocol="tcp" severity="2" pluginID="57608" pluginName="SMB Signing not required" pluginFamily="Misc.">
<synopsis>Signing is not required on the remote SMB server.</synopsis>
<description>Signing is not required on the remote SMB server.</description>
<solution>Enforce message signing in the host's configuration.</solution>
<risk_factor>Medium</risk_factor>
</ReportItem>
</ReportHost>
</Report>
</NessusClientData_v2>
`;

let app: TestApp;
let actor: Actor;
let clientId: string;
let workDir: string;

beforeAll(async () => {
  app = await startTestApp();
  const creator = await createActor(app, { role: 'member' });
  clientId = (await creator.api.post('/clients', { name: 'Example Corp' })).body.id;
  actor = await createActor(app, { role: 'member', clientIds: [clientId] });
  workDir = mkdtempSync(path.join(tmpdir(), 'client-example-'));
  writeFileSync(path.join(workDir, 'scan.nessus'), NESSUS);
});
afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await app?.stop();
});

describe.skipIf(!officeInstalled)('docs/examples/import-nessus.ts (skipped: LibreOffice is not installed)', () => {
  it('imports a Nessus file into a new report and downloads it as DOCX and PDF', { timeout: 240_000 }, async () => {
    const out = path.join(workDir, 'out');
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', EXAMPLE, path.join(workDir, 'scan.nessus'), '--client', clientId, '--out', out],
      { cwd: repoRoot, env: { ...process.env, SERVICE_URL: app.url, SERVICE_API_KEY: actor.key } },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as {
      reportId: string;
      created: number;
      merged: number;
      bySeverity: Record<string, number>;
      docx: string;
      pdf: string;
    };
    expect(result).toMatchObject({ created: 2, merged: 0, bySeverity: { high: 1, medium: 1 } });
    expect(readFileSync(result.docx).subarray(0, 2).toString()).toBe('PK');
    expect(readFileSync(result.pdf).subarray(0, 5).toString()).toBe('%PDF-');
    // The report holds what the file said: two findings, the SMB one on both hosts.
    const findings = await actor.api.get(`/findings?report_id=${result.reportId}`);
    const smb = findings.body.find((f: { title: string }) => /SMB/.test(f.title));
    expect(smb.affectedAssets.map((a: { host: string }) => a.host).sort()).toEqual(['10.0.0.5', '10.0.0.6']);

    // The downloads carry ETags: unchanged, nothing is downloaded again (304), PDF included.
    const service = createServiceClient({ baseUrl: app.url, apiKey: actor.key });
    for (const [kind, file] of [
      ['export-docx', 'again.docx'],
      ['export-pdf', 'again.pdf'],
    ] as const) {
      const first = await service.download(
        `/rest/v1/reports/{id}/${kind}`,
        { id: result.reportId },
        path.join(out, file),
      );
      expect(first?.etag, kind).toMatch(/^W\/"/);
      const again = await service.download(
        `/rest/v1/reports/{id}/${kind}`,
        { id: result.reportId },
        path.join(out, file),
        {
          ifNoneMatch: first!.etag!,
        },
      );
      expect(again, kind).toBeNull();
    }
  });

  it('says what went wrong, with the code and details, and exits 1', async () => {
    const failed = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        EXAMPLE,
        path.join(workDir, 'scan.nessus'),
        '--client',
        '00000000-0000-4000-8000-000000000000',
      ],
      { cwd: repoRoot, env: { ...process.env, SERVICE_URL: app.url, SERVICE_API_KEY: actor.key } },
    ).catch((err: { code?: number; stderr?: string }) => err);
    expect('code' in failed ? failed.code : 0).toBe(1);
    expect('stderr' in failed ? failed.stderr : '').toMatch(/422 invalid_reference/);
    expect('stderr' in failed ? failed.stderr : '').toMatch(/\/clientId: /);
  });
});
