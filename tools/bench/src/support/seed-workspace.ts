import type { Knex } from 'knex';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];
const TOPICS = [
  'SQL injection',
  'Cross-site scripting',
  'Outdated TLS configuration',
  'Missing security headers',
  'Default credentials',
  'Directory listing',
  'Open redirect',
  'Server-side request forgery',
];

/**
 * Fills a tenant database in a few statements: 20 clients, 10 projects each, 5 reports each, and
 * `findingsPerReport` findings in every report (50 gives 50,000; one in 8 is an "injection", one
 * in 7 has a CVE). Returns the number of findings.
 */
export async function seedWorkspace(db: Knex, options: { findingsPerReport: number }): Promise<number> {
  // Why one transaction: the temporary table lives on one connection.
  await db.transaction((t) => seed(t, options.findingsPerReport));
  await db.raw('analyze');
  const [{ n }] = (await db('findings').count({ n: '*' })) as [{ n: string }];
  return Number(n);
}

async function seed(t: Knex.Transaction, findingsPerReport: number): Promise<void> {
  const topics = `array[${TOPICS.map((x) => `'${x}'`).join(',')}]`;
  await t.raw(
    `insert into clients (name, description) select 'Client ' || g, 'Seeded client ' ` +
      `|| g from generate_series(1, 20) g`,
  );
  await t.raw(
    `insert into projects (client_id, name) select c.id, c.name || ' project ' || g ` +
      `from clients c, generate_series(1, 10) g`,
  );
  await t.raw(
    `insert into reports (project_id, title) select p.id, p.name || ' report ' || g ` +
      `from projects p, generate_series(1, 5) g`,
  );
  await t.raw(
    `create temporary table seed as select gen_random_uuid() as fid, r.id as rid, ` +
      `r.project_id as pid, g from reports r, generate_series(1, ?) g`,
    [findingsPerReport],
  );
  await t.raw(
    `insert into findings (id, project_id, title, severity, description, remediation, cves, created_at, updated_at)
     select fid, pid, (${topics})[1 + (g % ${TOPICS.length})] || ' #' || g,
            (array[${SEVERITIES.map((x) => `'${x}'`).join(',')}])[1 + (g % 5)],
            'The application is affected by ' || (${topics})[1 + (g % ${TOPICS.length})] || '. Details for finding ' || g || ' follow.',
            'Fix it.', case when g % 7 = 0 then array['CVE-2024-' || (1000 + g)] else '{}' end,
            now() - (g || ' seconds')::interval, now()
     from seed`,
  );
  await t.raw(`insert into report_findings (report_id, finding_id, position) select rid, fid, g from seed`);
  await t.raw('drop table seed');
}
