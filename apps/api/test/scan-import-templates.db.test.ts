// What a library template does to a scan import: several rules for one weakness become one
// finding, a template's score never contradicts the scanner's rating, and a German report gets
// the template's German text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
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
});
