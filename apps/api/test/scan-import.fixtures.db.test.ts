import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScan } from '@service/scanners';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const SCANS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/fixtures/scans');
const EXPECTED = JSON.parse(readFileSync(path.join(SCANS, 'EXPECTED.json'), 'utf8')) as {
  files: Record<string, { findings: number; occurrences: number }>;
};

/** EXPECTED.json counts open ports and vulners entries; NSE scripts that report a weakness are findings too (issue 19). */
const expectedFindings = (file: string, facts: { findings: number }): number =>
  facts.findings +
  parseScan(readFileSync(path.join(SCANS, file))).findings.filter((f) => f.checkType === 'nse-script').length;

let app: TestApp;
let actor: Actor;
let projectId: string;
let clientId: string;

beforeAll(async () => {
  app = await startTestApp();
  actor = await createActor(app, { role: 'member' });
  clientId = (await actor.api.post('/clients', { name: 'Scan Corp' })).body.id;
  await actor.allow(clientId);
  projectId = (await actor.api.post('/projects', { clientId, name: 'Scans' })).body.id;
});
afterAll(async () => {
  await app?.stop();
});

async function newReport(title: string): Promise<string> {
  return (await actor.api.post('/reports', { projectId, title })).body.id;
}

function upload(file: string | Buffer, name = 'scan.xml', fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('file', new Blob([typeof file === 'string' ? readFileSync(path.join(SCANS, file)) : file]), name);
  return form;
}

describe('POST /reports/{id}/import-scan with real scanner files', () => {
  const files = Object.entries(EXPECTED.files).filter(([, e]) => e.findings > 0);

  it.each(files)('%s: creates the expected findings, then merges on re-import', async (file, expected) => {
    const findings = expectedFindings(file, expected);
    const reportId = await newReport(file);
    const first = await actor.api.post(`/reports/${reportId}/import-scan`, upload(file, 'upload.bin'));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.format).toBe(file.split('/')[0]);
    // Every scanner result is answered; results of several rules for one template become one finding.
    type Entry = { new: boolean; id: string; outcome: string; mergedBy?: string };
    const entries: Entry[] = first.body.findings;
    expect(entries).toHaveLength(findings);
    expect(first.body.created + first.body.merged).toBe(findings);
    expect(entries.filter((f) => f.outcome === 'merged').every((f) => f.mergedBy === 'template')).toBe(true);
    expect(entries.every((f) => f.id)).toBe(true);
    const distinct = new Set(entries.map((f) => f.id)).size;
    expect(distinct).toBe(first.body.created);
    const listed = await actor.api.get(`/findings?report_id=${reportId}&per_page=1`);
    expect(listed.headers.get('x-total-count')).toBe(String(distinct));

    const again = await actor.api.post(`/reports/${reportId}/import-scan`, upload(file, 'upload.bin'));
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(0);
    expect(again.body.merged).toBe(findings);
    expect(again.body.findings.every((f: Entry) => !f.new && f.mergedBy === 'rule')).toBe(true);
    expect(new Set(again.body.findings.map((f: { id: string }) => f.id))).toEqual(
      new Set(first.body.findings.map((f: { id: string }) => f.id)),
    );
    expect((await actor.api.get(`/findings?report_id=${reportId}&per_page=1`)).headers.get('x-total-count')).toBe(
      String(distinct),
    );
  });

  it('with dryRun answers what the import would do and writes nothing; the import then does exactly that', async () => {
    const file = 'nessus/dd__nessus_with_cvssv3.nessus';
    const reportId = await newReport('Dry run first');
    const before = (await actor.api.get(`/reports/${reportId}`)).body.updatedAt;
    const dry = await actor.api.post(
      `/reports/${reportId}/import-scan-file`,
      upload(file, 'scan.nessus', { dryRun: 'true', minSeverity: 'low' }),
      { headers: { 'idempotency-key': 'dry-then-real' } },
    );
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, format: 'nessus' });
    expect(dry.body.created).toBeGreaterThan(0);
    type Entry = { id: string | null; outcome: string; title: string; template: { matchedOn: string } | null };
    const dryEntries: Entry[] = dry.body.findings;
    expect(dryEntries.filter((f) => f.outcome === 'created').every((f) => f.id === null)).toBe(true);
    // Nothing was written: no finding, the report unchanged.
    expect((await actor.api.get(`/findings?report_id=${reportId}&per_page=1`)).headers.get('x-total-count')).toBe('0');
    expect((await actor.api.get(`/reports/${reportId}`)).body.updatedAt).toBe(before);
    // The same Idempotency-Key then imports for real: a dry run is never replayed.
    const real = await actor.api.post(
      `/reports/${reportId}/import-scan-file`,
      upload(file, 'scan.nessus', { minSeverity: 'low' }),
      { headers: { 'idempotency-key': 'dry-then-real' } },
    );
    expect(real.status).toBe(200);
    expect(real.headers.get('idempotent-replayed')).toBeNull();
    expect(real.body.dryRun).toBe(false);
    const shape = (entries: Entry[]) => entries.map((f) => [f.outcome, f.title, f.template?.matchedOn ?? null]);
    expect(shape(real.body.findings)).toEqual(shape(dryEntries));
    expect([real.body.created, real.body.merged, real.body.skipped]).toEqual([
      dry.body.created,
      dry.body.merged,
      dry.body.skipped,
    ]);
  });

  it('keeps every affected host with its evidence, and merges new hosts into an existing finding', async () => {
    const reportId = await newReport('merge');
    const one = {
      source: { scanner: 'nessus' },
      ruleId: '57608',
      title: 'SMB Signing not required',
      severity: 'medium',
      occurrences: [
        { asset: { id: '10.0.0.5' }, port: 445, protocol: 'tcp', evidence: { output: 'signing: disabled' } },
      ],
    };
    const first = await actor.api.post(`/reports/${reportId}/import-scan`, { findings: [one] });
    expect(first.body.created).toBe(1);
    const id = first.body.findings[0].id;
    const second = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [
        {
          ...one,
          occurrences: [
            { asset: { id: '10.0.0.6' }, port: 445, protocol: 'tcp', evidence: { output: 'signing: disabled' } },
          ],
        },
      ],
    });
    expect(second.body).toMatchObject({ created: 0, merged: 1, findings: [{ id, new: false, assetsAdded: 1 }] });
    const finding = (await actor.api.get(`/findings/${id}`)).body;
    expect(finding.affectedAssets.map((a: { host: string }) => a.host)).toEqual(['10.0.0.5', '10.0.0.6']);
    expect(finding.affectedAssets[0].evidence).toContain('signing: disabled');
    // The global library's SMB signing template matched the plugin id.
    expect(finding.source).toMatchObject({
      kind: 'scanner',
      scanner: 'nessus',
      ruleId: '57608',
      templateKey: 'smb-signing-not-required',
    });
    expect(first.body.findings[0].template).toMatchObject({
      key: 'smb-signing-not-required',
      matchedOn: 'rule',
      detail: 'nessus:57608',
    });
  });

  it('takes curated text from a library template that declares the rule or shares a CVE', async () => {
    const byRule = await actor.api.post('/finding-library', {
      title: 'Exposed Git repository',
      severity: 'high',
      description: 'Curated description.',
      remediation: 'Curated remediation.',
      references: ['https://example.org/git'],
      scannerRules: ['nuclei:git-config'],
    });
    const byCve = await actor.api.post('/finding-library', {
      title: 'Curated CVE text',
      severity: 'high',
      description: 'About the CVE.',
      cves: ['CVE-2021-44228'],
    });
    const reportId = await newReport('library');
    const res = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [
        {
          source: { scanner: 'nuclei' },
          ruleId: 'git-config',
          title: 'Git Config File - Detect',
          severity: 'medium',
          description: 'scanner text',
          occurrences: [{ asset: { id: 'https://a.example/.git/config' }, evidence: { response: '[core]' } }],
        },
        {
          source: { scanner: 'nessus' },
          ruleId: '155999',
          title: 'Apache Log4j RCE',
          severity: 'critical',
          cves: ['cve-2021-44228'],
          occurrences: [{ asset: { id: '10.0.0.9' }, port: 8080, protocol: 'tcp' }],
        },
        // A rule no template declares, with a title no pattern matches.
        { source: { scanner: 'nessus' }, ruleId: '9999991', title: 'Zz unmatched check', severity: 'info' },
      ],
    });
    expect(res.status).toBe(200);
    const [git, log4j, plain] = res.body.findings;
    // Your own templates win over the global library's for the same rule or CVE.
    expect(git.template).toEqual({
      id: byRule.body.id,
      title: 'Exposed Git repository',
      key: null,
      matchedOn: 'rule',
      detail: 'nuclei:git-config',
      confidence: 'high',
    });
    expect(log4j.template).toEqual({
      id: byCve.body.id,
      title: 'Curated CVE text',
      key: null,
      matchedOn: 'cve',
      detail: 'CVE-2021-44228',
      confidence: expect.any(String),
    });
    expect(plain.template).toBeNull();
    const stored = (await actor.api.get(`/findings/${git.id}`)).body;
    expect(stored).toMatchObject({
      title: 'Exposed Git repository',
      description: 'Curated description.',
      remediation: 'Curated remediation.',
      severity: 'medium',
    });
    expect(stored.references).toContain('https://example.org/git');
    expect(stored.affectedAssets[0]).toMatchObject({ host: 'a.example', url: 'https://a.example/.git/config' });
    expect(stored.affectedAssets[0].evidence).toContain('[core]');
    expect(stored.source).toMatchObject({
      kind: 'scanner',
      scanner: 'nuclei',
      ruleId: 'git-config',
      templateId: byRule.body.id,
    });
  });

  it('skips findings below minSeverity and says so', async () => {
    const reportId = await newReport('min severity');
    const res = await actor.api.post(
      `/reports/${reportId}/import-scan`,
      upload('nessus/dd__nessus_with_cvssv3.nessus', 'a.nessus', { minSeverity: 'high' }),
    );
    expect(res.status).toBe(200);
    expect(res.body.created + res.body.merged).toBe(11);
    expect(res.body.skipped).toBe(37);
  });

  it('honours Idempotency-Key: a retried upload replays the answer and imports nothing twice', async () => {
    const reportId = await newReport('idempotent import');
    const headers = { 'Idempotency-Key': 'import-1' };
    const first = await actor.api.post(`/reports/${reportId}/import-scan`, upload('burp/dd__seven_findings.xml'), {
      headers,
    });
    const again = await actor.api.post(`/reports/${reportId}/import-scan`, upload('burp/dd__seven_findings.xml'), {
      headers,
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await actor.api.post(`/reports/${reportId}/import-scan`, upload('nmap/dd__nmap_1port.xml'), {
      headers,
    });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });

  it('is one transaction: a failure half-way leaves the report as it was', async () => {
    const reportId = await newReport('atomic');
    await actor.api.post(`/reports/${reportId}/import-scan`, upload('nmap/dd__nmap_1port.xml'));
    const before = (await actor.api.get(`/findings?report_id=${reportId}&per_page=100`)).body;
    await app.dbs.tenant.raw(
      `create or replace function fail_on_boom() returns trigger language plpgsql as $$ ` +
        `begin if new.title = 'BOOM' then raise exception 'boom'; end if; return new; end ` +
        `$$`,
    );
    await app.dbs.tenant.raw(
      'create trigger boom before insert on findings for each row execute function fail_on_boom()',
    );
    try {
      const res = await actor.api.post(`/reports/${reportId}/import-scan`, {
        findings: [
          {
            source: { scanner: 'nmap' },
            ruleId: 'open-port:22/tcp',
            groupKey: '22/tcp',
            title: 'Open port: 22/tcp',
            severity: 'info',
            occurrences: [{ asset: { id: '10.9.9.9' }, port: 22, protocol: 'tcp' }],
          },
          { source: { scanner: 'nessus' }, ruleId: '1', title: 'Fine', severity: 'low' },
          { source: { scanner: 'nessus' }, ruleId: '2', title: 'BOOM', severity: 'low' },
        ],
      });
      expect(res.status).toBe(500);
    } finally {
      await app.dbs.tenant.raw('drop trigger boom on findings');
    }
    const after = (await actor.api.get(`/findings?report_id=${reportId}&per_page=100`)).body;
    expect(after).toEqual(before);
  });
});

describe('bad scanner files', () => {
  let reportId: string;
  beforeAll(async () => {
    reportId = await newReport('hostile');
  });

  const cases: Array<[string, string, RegExp]> = [
    [
      'billion laughs',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 ' +
        '"&lol;&lol;">]><NessusClientData_v2>&lol2;</NessusClientData_v2>',
      /entit/i,
    ],
    [
      'external entity',
      '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><nmaprun>&xxe;</nmaprun>',
      /entit/i,
    ],
    ['truncated XML', '<?xml version="1.0"?><NessusClientData_v2><Report name="x"><ReportHost name="h">', /./],
    ['wrong root element', '<?xml version="1.0"?><html><body/></html>', /./],
    ['binary garbage', '\u0000\u0001\u0002\u00ff\u00fe garbage', /./],
    [
      'JSON with a bad line',
      '{"template-id":"a","info":{"name":"A","severity":"low"},"host":"h"}\n{not json}\n',
      /line 2/,
    ],
  ];

  it.each(cases)('%s answers 422 invalid_scan_file with a useful message', async (_label, content, message) => {
    const res = await actor.api.post(`/reports/${reportId}/import-scan`, upload(Buffer.from(content, 'latin1')));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('invalid_scan_file');
    expect(res.body.error.message).toMatch(message);
  });

  it('a 50,000-level nesting bomb answers 422 quickly', async () => {
    const bomb = `<?xml version="1.0"?><nmaprun>${'<a>'.repeat(50_000)}${'</a>'.repeat(50_000)}</nmaprun>`;
    const res = await actor.api.post(`/reports/${reportId}/import-scan`, upload(Buffer.from(bomb)));
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: '/file', message: expect.stringMatching(/^nmap at line \d+, column \d+: /) },
    ]);
  });

  it('answers 413 for a file over 4 MB', async () => {
    const res = await actor.api.post(
      `/reports/${reportId}/import-scan`,
      upload(Buffer.alloc(4 * 1024 * 1024 + 10, 0x20)),
    );
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('validates JSON findings against the schema, naming the path', async () => {
    const res = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [{ source: { scanner: 'nessus' }, title: 'x', severity: 'urgent' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining(['/findings/0/ruleId', '/findings/0/severity']),
    );
  });

  it('needs the report client on the key allow-list and hides other reports', async () => {
    const limited = await createActor(app, { role: 'member', clientIds: [] });
    const res = await limited.api.post(`/reports/${reportId}/import-scan`, upload('nmap/dd__nmap_1port.xml'));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('client_not_allowed');
    const readOnly = await createActor(app, { role: 'member', scope: 'read-only' });
    expect(
      (await readOnly.api.post(`/reports/${reportId}/import-scan`, upload('nmap/dd__nmap_1port.xml'))).body.error.code,
    ).toBe('read_only_key');
    const external = await createActor(app, { role: 'external' });
    expect(
      (await external.api.post(`/reports/${reportId}/import-scan`, upload('nmap/dd__nmap_1port.xml'))).status,
    ).toBe(404);
  });
});
