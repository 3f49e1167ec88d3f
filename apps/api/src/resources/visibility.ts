import type { Knex } from 'knex';

/**
 * How a resource's rows relate to clients, projects and reports, so that visibility is applied as
 * query conditions: a row in the trash (or under something in the trash) is never loaded, and an
 * external collaborator's rows are limited to what is shared with them.
 *
 * Aliases: the resource's own table is always `r`; `c` is its client, `p` its project and `rep`
 * its report where it has them.
 */
export interface Visibility {
  /** Joins from `r` to its ancestors. */
  join(q: Knex.QueryBuilder, db: Knex): void;
  /** Aliases whose `deleted_at` must be null (the resource itself included when it is trashable). */
  alive: string[];
  /** SQL for the id of the client owning the row; null for rows outside any client. */
  clientSql: string | null;
  /**
   * SQL for an external caller's access to the row, 2 = edit, 1 = view, null = none, with the
   * named binding `:uid`; null when externals never see this resource.
   */
  grantSql: string | null;
}

/** What an external collaborator is shared: a project, or a report and the project it is in (SQL for their ids). */
export interface ShareTarget {
  project: string;
  report?: string;
}

const LEVEL = "max(case g.access when 'edit' then 2 else 1 end)";

/** The condition on a share `g`: the user `:uid`'s share of the target's project or report. */
function isShareOf(target: ShareTarget): string {
  const of = [`(g.resource_type = 'project' and g.resource_id = ${target.project})`];
  if (target.report) of.push(`(g.resource_type = 'report' and g.resource_id = ${target.report})`);
  return `g.user_id = :uid and (${of.join(' or ')})`;
}

/**
 * The sharing rule, written once (DESIGN "Access"): an external collaborator sees a project shared
 * with them and everything in it, and a report shared with them and everything in it. SQL for the
 * access the user `:uid` holds on the target, 2 = edit, 1 = view, null = none; every query that
 * limits rows to what is shared is built on it (and on `findingShareLevelSql`).
 */
export function shareLevelSql(target: ShareTarget): string {
  return `(select ${LEVEL} from grants g where ${isShareOf(target)})`;
}

/**
 * A finding's share level: through its project, or through any report it is attached to that is
 * shared with the user and not in the trash (findings belong to a project and sit in its reports).
 */
export function findingShareLevelSql(finding: string, project: string): string {
  const viaReports =
    `(select ${LEVEL} from report_findings rf join reports srep on srep.id = rf.report_id and ` +
    `srep.deleted_at is null join grants g on ${isShareOf({ project: 'srep.project_id', report: 'srep.id' })} ` +
    `where rf.finding_id = ${finding})`;
  return `greatest(${shareLevelSql({ project })}, ${viaReports})`;
}

export const clientVisibility: Visibility = {
  join() {},
  alive: ['r'],
  clientSql: 'r.id',
  grantSql: null,
};

export const projectVisibility: Visibility = {
  join(q) {
    q.join('clients as c', 'c.id', 'r.client_id');
  },
  alive: ['r', 'c'],
  clientSql: 'r.client_id',
  grantSql: shareLevelSql({ project: 'r.id' }),
};

export const reportVisibility: Visibility = {
  join(q) {
    q.join('projects as p', 'p.id', 'r.project_id').join('clients as c', 'c.id', 'p.client_id');
  },
  alive: ['r', 'p', 'c'],
  clientSql: 'p.client_id',
  grantSql: shareLevelSql({ project: 'p.id', report: 'r.id' }),
};

/** Rows that belong to a report through `r.report_id` (tabs, links, report findings). */
export const reportChildVisibility: Visibility = {
  join(q) {
    q.join('reports as rep', 'rep.id', 'r.report_id')
      .join('projects as p', 'p.id', 'rep.project_id')
      .join('clients as c', 'c.id', 'p.client_id');
  },
  alive: ['rep', 'p', 'c'],
  clientSql: 'p.client_id',
  grantSql: shareLevelSql({ project: 'p.id', report: 'rep.id' }),
};

export const findingVisibility: Visibility = {
  join(q) {
    q.join('projects as p', 'p.id', 'r.project_id').join('clients as c', 'c.id', 'p.client_id');
  },
  alive: ['p', 'c'],
  clientSql: 'p.client_id',
  grantSql: findingShareLevelSql('r.id', 'p.id'),
};

/** Evidence belongs to a finding, to a report tab, or to a finding's result in a retest. */
export const evidenceVisibility: Visibility = {
  join(q, db) {
    q.leftJoin('findings as f', 'f.id', 'r.finding_id')
      .leftJoin('report_tabs as t', 't.id', 'r.report_tab_id')
      .leftJoin('retest_results as rr', 'rr.id', 'r.retest_result_id')
      .leftJoin('reports as rep', (j) => j.on(db.raw('rep.id = coalesce(t.report_id, rr.report_id)')))
      .join('projects as p', (j) => j.on(db.raw('p.id = coalesce(f.project_id, rep.project_id)')))
      .join('clients as c', 'c.id', 'p.client_id')
      .whereRaw('rep.deleted_at is null');
  },
  alive: ['p', 'c'],
  clientSql: 'p.client_id',
  grantSql: `coalesce(${shareLevelSql({ project: 'p.id', report: 'rep.id' })}, ${findingShareLevelSql('r.finding_id', 'p.id')})`,
};

/** Libraries: workspace-wide, no client, never visible to external collaborators. */
export const workspaceVisibility: Visibility = {
  join() {},
  alive: [],
  clientSql: null,
  grantSql: null,
};
