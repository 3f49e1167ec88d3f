import { defineCommand } from '@service/cli-kit';
import { describeBand, severityDisagreement, type Cvss, type Severity } from '@service/report-model';
import type { AdminContext } from '../admin-context.ts';

interface Row {
  id: string;
  title: string;
  severity: Severity;
  cvss: Cvss[];
  project: string;
  client: string;
}

const PAGE = 5_000;

/**
 * Lists findings whose severity contradicts the band of their CVSS score without a reason (made
 * before the reason existed, or written to the database by hand). Changes nothing: a person
 * decides whether the severity or the score is right.
 */
export const checkSeverities = defineCommand<AdminContext, { organization?: string }>({
  name: 'check-severities',
  summary: "List findings whose severity contradicts their CVSS score's band and says no reason (changes nothing)",
  options: [
    {
      flags: '--organization <id>',
      description: 'hosted: the organization (see list-organizations); self-hosted has one',
    },
  ],
  examples: ['npm run admin -- check-severities'],
  async run(ctx, options) {
    const organizationId = await ctx.organizationFor(options.organization);
    const found = await ctx.tenants.withTenant(organizationId, async (db) => {
      let count = 0;
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const rows: Row[] = await db('findings as f')
          .join('projects as p', 'p.id', 'f.project_id')
          .join('clients as c', 'c.id', 'p.client_id')
          .where('f.id', '>', after)
          .andWhere('f.severity_reason', '')
          .whereRaw('jsonb_array_length(f.cvss) > 0')
          .orderBy('f.id')
          .limit(PAGE)
          .select('f.id', 'f.title', 'f.severity', 'f.cvss', 'p.name as project', 'c.name as client');
        for (const row of rows) {
          const band = severityDisagreement(row);
          if (!band) continue;
          count += 1;
          ctx.print(
            `${row.id}  ${row.severity}, but ${describeBand(band)}  ${row.client} / ${row.project}: ${row.title}`,
          );
        }
        if (rows.length < PAGE) return count;
        after = rows[rows.length - 1]!.id;
      }
    });
    ctx.print(
      found === 0
        ? 'Every finding with a CVSS score has a severity in its band or says why.'
        : `${found} finding(s) contradict their score; set the right severity or CVSS, or a severityReason (PATCH /rest/v1/findings/{id}).`,
    );
  },
});
