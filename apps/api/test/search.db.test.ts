// `q` on lists: words as prefixes, identifiers exactly as typed (CVE and CWE ids, scanner rule ids,
// host names, IP addresses, URL paths), and text of any content stored with a bounded, linear
// search vector (tenant migration "identifier_search").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

let app: TestApp;
let admin: Actor;
let reportId: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp();
  admin = await createActor(app, { role: 'admin' });
  const client = await admin.api.post('/clients', {
    name: 'Search Corp',
    website: 'https://portal.search-corp.example',
  });
  await admin.allow(client.body.id);
  const project = await admin.api.post('/projects', { clientId: client.body.id, name: 'Search test' });
  const report = await admin.api.post('/reports', { projectId: project.body.id, title: 'Search report' });
  reportId = report.body.id;
  const findings = {
    sqli: {
      title: 'SQL injection in login',
      severity: 'high',
      cves: ['CVE-2024-1007'],
      cwes: [89],
      source: { kind: 'scanner', scanner: 'nessus', ruleId: '57608' },
      affectedAssets: [
        { host: 'app.example.com', ip: '10.0.0.5', port: 8443, url: 'https://app.example.com/api/v1/search?q=1' },
      ],
    },
    git: {
      title: 'Git repository exposed',
      severity: 'medium',
      cves: ['CVE-2024-10070'],
      cwes: [890],
      source: { kind: 'scanner', scanner: 'nuclei', ruleId: 'git-config' },
      affectedAssets: [
        { host: 'intranet.corp.example', ip: '10.0.0.50', url: 'https://intranet.corp.example/.git/HEAD' },
      ],
    },
    xss: {
      title: 'Reflected cross-site scripting',
      severity: 'low',
      cwes: [79],
      description:
        'The renderer behind `/api/v2/render` on 192.168.1.20 reflects the `name` parameter; the ' +
        'same library was exploited as CVE-2023-4863 (see tls-scan:weak-cipher-suites).',
    },
  };
  for (const [name, body] of Object.entries(findings)) {
    const res = await admin.api.post('/findings', { reportId, ...body });
    expect(res.status).toBe(201);
    ids[name] = res.body.id;
  }
});
afterAll(async () => {
  await app?.stop();
});

/** The names of the findings of the report `q` finds. */
async function found(q: string): Promise<string[]> {
  const res = await admin.api.get(`/findings?report_id=${reportId}&q=${encodeURIComponent(q)}`);
  expect(res.status).toBe(200);
  const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
  return res.body.map((f: { id: string }) => names[f.id]).sort();
}

describe('search by identifier', () => {
  it('finds CVE ids as typed, in the CVE list and in text, and not a longer id', async () => {
    expect(await found('CVE-2024-1007')).toEqual(['sqli']);
    expect(await found('cve-2024-10070')).toEqual(['git']);
    expect(await found('CVE-2023-4863')).toEqual(['xss']);
    expect(await found('CVE-2024')).toEqual(['git', 'sqli']);
    expect(await found('CVE-2024-1008')).toEqual([]);
  });

  it('finds CWE ids written CWE-89 or 89, numbers whole', async () => {
    expect(await found('CWE-89')).toEqual(['sqli']);
    expect(await found('89')).toEqual(['sqli']);
    expect(await found('cwe-890')).toEqual(['git']);
    expect(await found('CWE-79')).toEqual(['xss']);
  });

  it('finds scanner rule ids, alone or with their scanner', async () => {
    expect(await found('57608')).toEqual(['sqli']);
    expect(await found('nessus:57608')).toEqual(['sqli']);
    expect(await found('git-config')).toEqual(['git']);
    expect(await found('nuclei:git-config')).toEqual(['git']);
    expect(await found('tls-scan:weak-cipher-suites')).toEqual(['xss']);
  });

  it('finds host names whole, by their domain, and with a port', async () => {
    expect(await found('app.example.com')).toEqual(['sqli']);
    expect(await found('example.com')).toEqual(['sqli']);
    expect(await found('intranet.corp.example')).toEqual(['git']);
    expect(await found('corp.example')).toEqual(['git']);
    expect(await found('APP.EXAMPLE.COM')).toEqual(['sqli']);
  });

  it('finds IP addresses exactly, not addresses they are a prefix of', async () => {
    expect(await found('10.0.0.5')).toEqual(['sqli']);
    expect(await found('10.0.0.50')).toEqual(['git']);
    expect(await found('192.168.1.20')).toEqual(['xss']);
    expect(await found('10.0.0')).toEqual(['git', 'sqli']);
  });

  it('finds URL paths, whole or their beginning, in assets and in text', async () => {
    expect(await found('/api/v1/search')).toEqual(['sqli']);
    expect(await found('/api/v1')).toEqual(['sqli']);
    expect(await found('/api/v2/render')).toEqual(['xss']);
    expect(await found('/.git/HEAD')).toEqual(['git']);
    expect(await found('https://app.example.com/api/v1/search?q=1')).toEqual(['sqli']);
  });

  it('keeps prefix word search, all words required', async () => {
    expect(await found('inj')).toEqual(['sqli']);
    expect(await found('sql inj')).toEqual(['sqli']);
    expect(await found('sql exposed')).toEqual([]);
    expect(await found('REPOS')).toEqual(['git']);
    expect(await found('cross-site')).toEqual(['xss']);
    expect(await found('<!-- -->')).toEqual([]);
  });

  it('searches the identifiers of the other lists too', async () => {
    const clients = await admin.api.get(`/clients?q=${encodeURIComponent('portal.search-corp.example')}`);
    expect(clients.body.map((c: { name: string }) => c.name)).toEqual(['Search Corp']);
    const link = await admin.api.post('/report-links', {
      reportId,
      title: 'Ticket',
      url: 'https://tickets.example/browse/SEC-1234',
    });
    expect(link.status).toBe(201);
    const links = await admin.api.get(`/report-links?q=SEC-1234`);
    expect(links.body.map((l: { id: string }) => l.id)).toEqual([link.body.id]);
    const template = await admin.api.post('/finding-library', {
      title: 'Search test template',
      severity: 'high',
      cves: ['CVE-2031-99991'],
      scannerRules: ['nessus:9999991'],
    });
    expect(template.status).toBe(201);
    for (const q of ['CVE-2031-99991', 'nessus:9999991']) {
      const templates = await admin.api.get(`/finding-library?q=${encodeURIComponent(q)}`);
      expect(templates.body.map((t: { id: string }) => t.id)).toEqual([template.body.id]);
    }
  });
});

describe('text of any content', () => {
  /** The lexemes of a finding's stored search vector. */
  async function lexemes(id: string): Promise<string[]> {
    const row = await app.dbs
      .tenant('findings')
      .where({ id })
      .first(app.dbs.tenant.raw('tsvector_to_array(search) as l'));
    return row.l;
  }

  it('stores a search vector that ignores runs of markup, whatever their length', async () => {
    const plain = await admin.api.post('/findings', { reportId, title: 'Markup run', severity: 'info' });
    const before = await lexemes(plain.body.id);
    const long = await admin.api.patch(`/findings/${plain.body.id}`, { description: '<!--'.repeat(250_000) });
    expect(long.status).toBe(200);
    expect(await lexemes(plain.body.id)).toEqual(before);
    for (const run of ['<a href="', '&#x', '&amp;', '\\', '</', '<![CDATA[', '-->', '*_', '[](', '<?', '@.', '-1.']) {
      const res = await admin.api.patch(`/findings/${plain.body.id}`, {
        description: run.repeat(Math.floor(250_000 / run.length)),
      });
      expect(res.status).toBe(200);
      const words = run.toLowerCase().match(/[a-z0-9]+/g) ?? [];
      expect(await lexemes(plain.body.id)).toEqual([...new Set([...before, ...words])].sort());
    }
  });

  it('finds a word far into a long text', async () => {
    const res = await admin.api.post('/findings', {
      reportId,
      title: 'Long text',
      severity: 'info',
      description: `${'filler text of the appendix '.repeat(20_000)} needleword`,
    });
    expect(res.status).toBe(201);
    const search = await admin.api.get(`/findings?report_id=${reportId}&q=needlew`);
    expect(search.body.map((f: { id: string }) => f.id)).toEqual([res.body.id]);
  });

  it('saves 1 MB of distinct words with a vector under the size limit', async () => {
    const words = Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    const res = await admin.api.post('/findings', {
      reportId,
      title: 'Many words',
      severity: 'info',
      description: words,
    });
    expect(res.status).toBe(201);
    expect((await lexemes(res.body.id)).length).toBeLessThan(20_000);
  });

  it('saves 1 MB of dotted identifiers with a bounded vector', async () => {
    const dotted = Array.from({ length: 30_000 }, (_, i) => `a.b${i}.c.d.e.f.g.h`).join(' ');
    const res = await admin.api.post('/findings', {
      reportId,
      title: dotted.slice(0, 500),
      severity: 'info',
      description: dotted,
      references: Array.from({ length: 200 }, (_, i) => `https://x${i}.example/${'a.'.repeat(1500)}`),
    });
    expect(res.status).toBe(201);
    expect((await lexemes(res.body.id)).length).toBeLessThan(20_000);
  });
});
