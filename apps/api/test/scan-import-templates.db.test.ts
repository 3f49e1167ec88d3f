// What a library template does to a scan import: several rules for one weakness become one
// finding, a template's score never contradicts the scanner's rating, and a German report gets
// the template's German text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { scanForm } from './support/retest-scans.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let actor: Actor;
let projectId: string;

beforeAll(async () => {
  app = await startTestApp();
  actor = await createActor(app, { role: 'member' });
  const clientId = (await actor.api.post('/clients', { name: 'Templates Ltd' })).body.id;
  await actor.allow(clientId);
  projectId = (await actor.api.post('/projects', { clientId, name: 'Templates' })).body.id;
  const template = await actor.api.post('/finding-library', {
    title: 'Outdated widget server',
    severity: 'high',
    cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', baseScore: 7.5 }],
    description: 'The widget server is outdated.',
    remediation: 'Update it.',
    scannerRules: ['nessus:990301', 'nessus:990302', 'nuclei:widget-old'],
    translations: { de: { title: 'Veralteter Widget-Server', description: 'Der Widget-Server ist veraltet.' } },
  });
  expect(template.status, JSON.stringify(template.body)).toBe(201);
});
afterAll(async () => {
  await app?.stop();
});

const result = (scanner: string, ruleId: string, severity: string, host: string) => ({
  source: { scanner },
  ruleId,
  title: `${scanner} ${ruleId}`,
  severity,
  occurrences: [{ asset: { id: host }, port: 443, protocol: 'tcp' }],
});

async function newReport(title: string, language = 'en'): Promise<string> {
  return (await actor.api.post('/reports', { projectId, title, language })).body.id;
}

describe('scan import with library templates', () => {
  it('dry run: says which template each result would take and how it matched, and writes nothing', async () => {
    const reportId = await newReport('Dry run with templates');
    const dry = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [result('nessus', '990301', 'high', '10.0.0.1'), result('nessus', '990399', 'low', '10.0.0.2')],
      dryRun: true,
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, created: 2, merged: 0 });
    expect(dry.body.findings[0]).toMatchObject({
      id: null,
      outcome: 'created',
      template: { title: 'Outdated widget server', matchedOn: 'rule', detail: 'nessus:990301' },
    });
    expect(dry.body.findings[1]).toMatchObject({ id: null, outcome: 'created', template: null });
    expect((await actor.api.get(`/findings?report_id=${reportId}`)).body).toEqual([]);
  });

  it('makes one finding of several rules for one template, within an import and across imports', async () => {
    const reportId = await newReport('One per weakness');
    const first = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [result('nessus', '990301', 'high', '10.0.0.1'), result('nessus', '990302', 'high', '10.0.0.2')],
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ created: 1, merged: 1 });
    const [a, b] = first.body.findings;
    expect(b).toMatchObject({ outcome: 'merged', mergedBy: 'template', id: a.id, ruleId: '990302' });
    const later = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [
        result('nuclei', 'widget-old', 'high', 'widgets.example'),
        result('nessus', '990301', 'high', '10.0.0.3'),
      ],
    });
    expect(later.body).toMatchObject({ created: 0, merged: 2 });
    expect(later.body.findings.map((f: { mergedBy: string }) => f.mergedBy).sort()).toEqual(['rule', 'template']);
    const findings = (await actor.api.get(`/findings?report_id=${reportId}`)).body;
    expect(findings).toHaveLength(1);
    expect(findings[0].affectedAssets.map((x: { host: string }) => x.host).sort()).toEqual([
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.3',
      'widgets.example',
    ]);
  });

  it("takes the template's CVSS only where it agrees with the scanner's rating, and says so otherwise", async () => {
    const reportId = await newReport('Scores');
    const agreeing = await actor.api.post(`/reports/${reportId}/import-scan`, {
      findings: [result('nessus', '990301', 'high', '10.0.0.1')],
    });
    const high = (await actor.api.get(`/findings/${agreeing.body.findings[0].id}`)).body;
    expect(high.cvss).toHaveLength(1);
    expect(agreeing.body.warnings).toEqual([]);

    const other = await newReport('Scores 2');
    const disagreeing = await actor.api.post(`/reports/${other}/import-scan`, {
      findings: [result('nessus', '990302', 'low', '10.0.0.1')],
    });
    const low = (await actor.api.get(`/findings/${disagreeing.body.findings[0].id}`)).body;
    expect(low).toMatchObject({ severity: 'low', cvss: [], severityReason: '' });
    expect(disagreeing.body.warnings).toEqual([
      "nessus:990302: The template's CVSS was not taken: the CVSS 3.1 base score 7.5 is high, but the scanner rated the finding low.",
    ]);
  });

  it('rates a finding merged from several results by the worst, with its score or a reason naming them', async () => {
    const medium = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N';
    const high = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';
    const scored = (ruleId: string, severity: string, host: string, vector?: string) => ({
      ...result('nessus', ruleId, severity, host),
      ...(vector ? { cvss: [{ version: '3.1', vector, baseScore: vector === high ? 7.5 : 5.3 }] } : {}),
    });
    // The worst result has its own score: the finding takes it, and needs no reason.
    const agreeing = await newReport('Worst with a score');
    const a = await actor.api.post(`/reports/${agreeing}/import-scan`, {
      findings: [scored('990301', 'medium', '10.0.0.1', medium), scored('990302', 'high', '10.0.0.2', high)],
    });
    expect(a.body).toMatchObject({ created: 1, merged: 1 });
    expect(a.body.findings.map((f: { severity: string }) => f.severity)).toEqual(['high', 'high']);
    const one = (await actor.api.get(`/findings/${a.body.findings[0].id}`)).body;
    expect(one).toMatchObject({ severity: 'high', severityReason: '' });
    expect(one.cvss.map((c: { baseScore: number }) => c.baseScore)).toEqual([7.5]);

    // The worst result has none: the finding keeps the other's score and says why it is rated higher.
    const disagreeing = await newReport('Worst without a score', 'de');
    const b = await actor.api.post(`/reports/${disagreeing}/import-scan`, {
      findings: [scored('990301', 'medium', '10.0.0.1', medium), scored('990302', 'high', '10.0.0.2')],
    });
    const two = (await actor.api.get(`/findings/${b.body.findings[0].id}`)).body;
    expect(two.severity).toBe('high');
    expect(two.cvss.map((c: { baseScore: number }) => c.baseScore)).toEqual([5.3]);
    expect(two.severityReason).toBe(
      'Als hoch eingestuft: der höchste Schweregrad der zusammengeführten Scanner-Ergebnisse (Nessus 990301 ' +
        'mittel, Nessus 990302 hoch); der CVSS-3.1-Basiswert 5,3 (von Nessus 990301) entspricht mittel.',
    );
    // Such a finding can be sent back as it is: the REST rule is met.
    const patched = await actor.api.patch(`/findings/${two.id}`, {
      severity: two.severity,
      cvss: two.cvss,
      severityReason: two.severityReason,
      expectedUpdatedAt: two.updatedAt,
    });
    expect(patched.status).toBe(200);
  });

  it("uses the report's language, and says when the template lacks it", async () => {
    const german = await newReport('Deutsch', 'de-DE');
    const res = await actor.api.post(`/reports/${german}/import-scan`, {
      findings: [result('nessus', '990301', 'high', '10.0.0.1')],
    });
    const finding = (await actor.api.get(`/findings/${res.body.findings[0].id}`)).body;
    expect(finding).toMatchObject({
      title: 'Veralteter Widget-Server',
      description: 'Der Widget-Server ist veraltet.',
    });
    expect(finding.remediation).toBe('Update it.');
    expect(res.body.warnings).toEqual([]);

    const french = await newReport('Français', 'fr');
    const fr = await actor.api.post(`/reports/${french}/import-scan`, {
      findings: [result('nessus', '990301', 'high', '10.0.0.1')],
    });
    expect((await actor.api.get(`/findings/${fr.body.findings[0].id}`)).body.title).toBe('Outdated widget server');
    expect(fr.body.warnings).toEqual([
      'nessus:990301: the template "Outdated widget server" has no text in fr; its en text was used.',
    ]);
  });

  it('makes one finding per template where one scanner rule covers several things (Burp TLS certificate)', async () => {
    const issue = (host: string, severity: string, detail: string) =>
      `<issue><serialNumber>${host.length}</serialNumber><type>16777472</type><name>TLS certificate</name>` +
      `<host ip="10.0.0.1">https://${host}</host><path>/</path><location>/</location>` +
      `<severity>${severity}</severity><confidence>Certain</confidence>` +
      `<issueDetail><![CDATA[${detail}]]></issueDetail></issue>`;
    const burp =
      `<?xml version="1.0"?><issues burpVersion="2024.1">` +
      issue(
        'untrusted.example',
        'Medium',
        "The following problem was identified with the server's TLS certificate:<ul><li>The server's certificate is not trusted.</li></ul>",
      ) +
      issue(
        'expired.example',
        'Medium',
        "The following problem was identified with the server's TLS certificate:<ul><li>The server's certificate has expired.</li></ul>",
      ) +
      issue(
        'valid.example',
        'Information',
        'The server presented a valid, trusted TLS certificate. This issue is purely informational.',
      ) +
      `</issues>`;
    const reportId = await newReport('Certificates');
    const res = await actor.api.post(`/reports/${reportId}/import-scan`, scanForm(burp, 'burp.xml'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byKey = Object.fromEntries(
      res.body.findings.map((f: { groupKey: string; severity: string; template: { key: string } | null }) => [
        f.groupKey,
        [f.severity, f.template?.key ?? null],
      ]),
    );
    expect(byKey).toEqual({
      '16777472': ['medium', 'untrusted-certificate'],
      '16777472|expired-certificate': ['medium', 'expired-certificate'],
      '16777472|tls-certificate-information': ['info', 'tls-certificate-information'],
    });
    const findings = (await actor.api.get(`/findings?report_id=${reportId}`)).body as Array<{
      title: string;
      affectedAssets: Array<{ host: string }>;
    }>;
    const hostsOf = (title: string) => findings.find((f) => f.title === title)?.affectedAssets.map((a) => a.host);
    expect(hostsOf('TLS certificate not trusted')).toEqual(['untrusted.example']);
    // Importing the same file again merges every part into its own finding.
    const again = await actor.api.post(`/reports/${reportId}/import-scan`, scanForm(burp, 'burp.xml'));
    expect(again.body).toMatchObject({ created: 0, merged: 3 });
  });
});
