import { ConflictError } from '@service/http';
import type { Knex } from 'knex';
import {
  FINDING_COLUMNS,
  findingFromColumns,
  freshRetestResult,
  LINK,
  newestVersion,
  REPORT,
  REPORT_PROJECT,
  TAB,
  tabOfTemplate,
  type FieldColumns,
  type LINK_FIELDS,
  type TAB_FIELDS,
  type ReportRef,
  type RetestInfo,
  type EvidenceRef,
  type FindingColumns,
  type LibraryItemRef,
  type ReportDocument,
  type ReportDocumentFinding,
  type ReportTemplateTab,
} from '@service/report-model';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { EvidenceRepository } from '../evidence-images/evidence-repository.ts';
import type { FindingRepository } from '../findings/findings-repository.ts';
import { insertReportTabs } from '../report-tabs/insert-report-tabs.ts';
import { assertUnchangedSince, nextUpdatedAt, ResourceRepository } from '../resource-repository.ts';
import { insertRetestResults, readRetestResults, withoutEvidence } from '../retests/retest-repository.ts';
import { reportsDeclaration } from './reports-resource.ts';

type LibraryTable = 'report_templates' | 'report_styles';

/**
 * What creating a report from a document did besides the rows: evidence it could not link, library
 * items it could not find.
 */
export interface CreatedReport {
  reportId: string;
  findingIds: string[];
  /** Evidence references of the document that name no image the caller can see. */
  unlinkedEvidence: number;
  warnings: string[];
}

/** Reports: the generic reads and writes, plus reading and creating a whole `ReportDocument`. */
export class ReportRepository extends ResourceRepository<ReturnType<typeof reportsDeclaration>['fields']> {
  constructor(
    private readonly findings: FindingRepository,
    private readonly evidence: EvidenceRepository,
  ) {
    super(
      reportsDeclaration({
        copyTemplateTabs: (trx, reportId, templateId, userId, options) =>
          this.copyTemplateTabs(trx, reportId, templateId, userId, options),
        reorder: (trx, reportId) => this.findings.orderBySeverity(trx, [reportId]),
      }),
    );
  }

  private async copyTemplateTabs(
    trx: Knex,
    reportId: string,
    templateId: string,
    userId: string,
    options: { takeLanguage: boolean },
  ): Promise<void> {
    const template = await trx('report_templates').where({ id: templateId }).first('tabs', 'style_id', 'language');
    const tabs: ReportTemplateTab[] = template?.tabs ?? [];
    await insertReportTabs(trx, reportId, userId, tabs.map(tabOfTemplate));
    // A report made from a template takes the template's style unless it names one itself.
    if (template?.style_id)
      await trx('reports').where({ id: reportId }).whereNull('style_id').update({ style_id: template.style_id });
    // A German template makes a German report, unless the request chose a language.
    if (options.takeLanguage && template?.language)
      await trx('reports').where({ id: reportId }).update({ language: template.language });
  }

  /**
   * A whole report as one document: metadata, client and project, tabs in order, links, and every
   * attached finding in report order with its evidence. 404 when the caller may not see it.
   */
  async loadDocument(
    db: Knex,
    principal: RestPrincipal,
    reportId: string,
    action: 'read' | 'export' = 'export',
  ): Promise<ReportDocument> {
    const report = await this.require(db, principal, reportId, action);
    const [meta, project, tabs, links, findings] = await Promise.all([
      db('reports as r')
        .join('projects as p', 'p.id', 'r.project_id')
        .join('clients as c', 'c.id', 'p.client_id')
        .leftJoin('report_styles as s', 's.id', 'r.style_id')
        .leftJoin('report_templates as t', 't.id', 'r.template_id')
        .where('r.id', reportId)
        .first(
          'c.id as client_id',
          'c.name as client_name',
          's.id as style_id',
          's.name as style_name',
          's.global_key as style_key',
          't.id as template_id',
          't.name as template_name',
          't.global_key as template_key',
        ),
      db('projects')
        .where({ id: report.project_id })
        .first('id', ...REPORT_PROJECT.columns) as Promise<
        FieldColumns<typeof REPORT_PROJECT.declarations> & { id: string }
      >,
      db('report_tabs')
        .where({ report_id: reportId })
        .orderBy([{ column: 'position' }, { column: 'created_at' }, { column: 'id' }])
        .select('id', ...TAB.columns) as Promise<Array<FieldColumns<typeof TAB_FIELDS> & { id: string }>>,
      db('report_links')
        .where({ report_id: reportId })
        .orderBy([{ column: 'position' }, { column: 'created_at' }, { column: 'id' }])
        .select(...LINK.columns) as Promise<Array<FieldColumns<typeof LINK_FIELDS>>>,
      db('report_findings as rf')
        .join('findings as f', 'f.id', 'rf.finding_id')
        .where('rf.report_id', reportId)
        .orderBy([{ column: 'rf.position' }, { column: 'rf.created_at' }, { column: 'f.id' }])
        .select('f.id', ...FINDING_COLUMNS.map((c) => `f.${c}`)) as Promise<Array<FindingColumns & { id: string }>>,
    ]);
    const results = report.kind === 'retest' ? await readRetestResults(db, reportId) : null;
    const { byFinding, byTab, byRetestResult } = await this.evidence.refsOf(db, {
      findingIds: findings.map((f) => f.id),
      tabIds: tabs.map((t) => t.id),
      retestResultIds: results ? [...results.values()].map((r) => r.id) : [],
    });
    const retest: RetestInfo | null =
      report.kind === 'retest'
        ? {
            round: report.round,
            retestOf: await this.refOf(db, principal, report.retest_of),
            original: await this.refOf(db, principal, report.original_report_id),
          }
        : null;
    const ref = (id: string | null, key: string | null, name: string | null): LibraryItemRef | null =>
      id ? { id, key, name: name ?? '' } : null;
    return {
      id: report.id,
      ...REPORT.fromColumns(report),
      client: { id: meta.client_id, name: meta.client_name },
      project: { id: project.id, ...REPORT_PROJECT.fromColumns(project) },
      style: ref(meta.style_id, meta.style_key, meta.style_name),
      template: ref(meta.template_id, meta.template_key, meta.template_name),
      tabs: tabs.map((t) => ({ ...TAB.fromColumns(t), evidence: byTab.get(t.id) ?? [] })),
      links: links.map((l) => LINK.fromColumns(l)),
      findings: findings.map((f): ReportDocumentFinding => {
        const finding: ReportDocumentFinding = {
          id: f.id,
          ...findingFromColumns(f),
          evidence: byFinding.get(f.id) ?? [],
        };
        if (results) {
          const record = results.get(f.id);
          finding.retest = record
            ? { ...record.result, evidence: byRetestResult.get(record.id) ?? [] }
            : freshRetestResult(finding.affectedAssets, 'new');
        }
        return finding;
      }),
      ...(retest ? { retest } : {}),
    };
  }

  /** Another report a retest names, by id, title and date (its newest version's), when the caller can see it. */
  private async refOf(db: Knex, principal: RestPrincipal, id: string | null): Promise<ReportRef | null> {
    if (!id) return null;
    const row = await this.find(db, principal, id);
    return row ? { id: row.id, title: row.title, date: newestVersion(row.version_history)?.date ?? null } : null;
  }

  /**
   * The report of the project a retest file names (by title): the round before (`round - 1`; an
   * original report for round 1) or the original. Null when there is not exactly one visible.
   */
  private async findLinkedReport(
    trx: Knex,
    principal: RestPrincipal,
    projectId: string,
    ref: ReportRef | null,
    round: number,
  ): Promise<string | null> {
    if (!ref) return null;
    const rows: Array<{ id: string }> = await this.scoped(trx, principal)
      .where('r.project_id', projectId)
      .andWhere('r.title', ref.title)
      .andWhere('r.round', round)
      .clearSelect()
      .select('r.id')
      .limit(2);
    return rows.length === 1 ? rows[0]!.id : null;
  }

  /**
   * The round of a new retest of `originalId` (the original report): the round after the last one
   * given to its retests, and at least `atLeast`. One atomic statement on the original's counter,
   * so parallel retests of one original never share a round; `(original_report_id, round)` is
   * unique besides (tenant migration "order_and_rounds").
   */
  async takeRetestRound(trx: Knex, originalId: string, atLeast: number): Promise<number> {
    const [row]: Array<{ last_retest_round: number }> = await trx('reports')
      .where({ id: originalId })
      .update({ last_retest_round: trx.raw('greatest(last_retest_round + 1, ?)', [atLeast]) })
      .returning('last_retest_round');
    if (!row) throw new Error(`takeRetestRound: report ${originalId} does not exist`);
    return row.last_retest_round;
  }

  /**
   * Sets a manual order of a report's findings: one transaction with the report locked; the list
   * must be exactly the report's findings (409 `conflict` naming what differs), and
   * `expectedUpdatedAt`, when given, must be the report's current one.
   */
  async setFindingOrder(
    db: Knex,
    principal: RestPrincipal,
    reportId: string,
    findingIds: readonly string[],
    options: { expectedUpdatedAt?: string },
  ): Promise<{ reportId: string; findingOrder: 'manual'; findingIds: string[]; updatedAt: string }> {
    return db.transaction(async (trx) => {
      const report = await this.require(trx, principal, reportId, 'update', { forUpdate: true });
      assertUnchangedSince(this.label, report.updated_at, options.expectedUpdatedAt);
      const attached: string[] = await trx('report_findings').where({ report_id: reportId }).pluck('finding_id');
      const have = new Set(attached);
      const given = new Set(findingIds);
      const missing = attached.filter((id) => !given.has(id));
      const unknown = findingIds.filter((id) => !have.has(id));
      if (missing.length > 0 || unknown.length > 0)
        throw new ConflictError(
          `The list is not exactly the report's findings (${missing.length} missing, ${unknown.length} not in the ` +
            'report); read them again and send every one once.',
          'conflict',
          [
            ...missing.map((id) => ({ path: '/findingIds', message: 'a finding of the report is missing', value: id })),
            ...unknown.map((id) => ({ path: '/findingIds', message: 'is not a finding of the report', value: id })),
          ].slice(0, 100),
        );
      if (findingIds.length > 0)
        await trx.raw(
          `update report_findings rf set position = o.n - 1
             from unnest(?::uuid[]) with ordinality as o(finding_id, n)
            where rf.report_id = ? and rf.finding_id = o.finding_id and rf.position <> o.n - 1`,
          [[...findingIds], reportId],
        );
      const [updated]: Array<{ updated_at: Date }> = await trx('reports')
        .where({ id: reportId })
        .update({ finding_order: 'manual', updated_at: nextUpdatedAt(trx) })
        .returning('updated_at');
      return {
        reportId,
        findingOrder: 'manual' as const,
        findingIds: [...findingIds],
        updatedAt: updated!.updated_at.toISOString(),
      };
    });
  }

  /** A library item named by a document: by global key first, then by name. */
  private async findLibraryItem(trx: Knex, table: LibraryTable, item: LibraryItemRef | null): Promise<string | null> {
    if (!item) return null;
    if (item.key) {
      const byKey = await trx(table).where({ global_key: item.key }).first('id');
      if (byKey) return byKey.id;
    }
    const byName = await trx(table)
      .where({ name: item.name })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .first('id');
    return byName?.id ?? null;
  }

  /**
   * Creates a whole report from a document in the caller's transaction: the report, its tabs,
   * links and findings (created in the project and attached in order), and the evidence images
   * the caller can see re-linked by content. The project must be visible and editable.
   */
  async createDocument(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    projectId: string,
    doc: ReportDocument,
  ): Promise<CreatedReport> {
    const warnings: string[] = [];
    const external = principal.role === 'external';
    const styleId = external ? null : await this.findLibraryItem(trx, 'report_styles', doc.style);
    const templateId = external ? null : await this.findLibraryItem(trx, 'report_templates', doc.template);
    if (doc.style && !styleId)
      warnings.push(
        `The report style "${doc.style.key ?? doc.style.name}" is not in your style library; the report has no style.`,
      );
    if (doc.template && !templateId)
      warnings.push(
        `The report template "${doc.template.key ?? doc.template.name}" is not in your ` +
          `library; the report names no template.`,
      );
    const report = await this.create(trx, principal, { projectId, ...REPORT.pick(doc), styleId });
    // Why not through `templateId` on create: the document carries its own tabs; the template is only named.
    if (templateId) await trx('reports').where({ id: report.id }).update({ template_id: templateId });
    if (doc.retest) {
      // Why by title: a file holds no ids; the rounds it follows are found in the same project, if there.
      const retestOf = await this.findLinkedReport(
        trx,
        principal,
        projectId,
        doc.retest.retestOf,
        doc.retest.round - 1,
      );
      const original = await this.findLinkedReport(trx, principal, projectId, doc.retest.original, 0);
      for (const [ref, id, what] of [
        [doc.retest.retestOf, retestOf, 'the round before'],
        [doc.retest.original, original, 'the original report'],
      ] as const)
        if (ref && !id)
          warnings.push(
            `The retest names ${what} "${ref.title}", which is not one report of this project you can see; ` +
              'the retest is not linked to it.',
          );
      const originalId = original ?? (doc.retest.round === 1 ? retestOf : null);
      const round = originalId ? await this.takeRetestRound(trx, originalId, doc.retest.round) : doc.retest.round;
      if (round !== doc.retest.round)
        warnings.push(
          `The original report already has a retest round ${doc.retest.round}; this retest is round ${round}.`,
        );
      await trx('reports')
        .where({ id: report.id })
        .update({ kind: 'retest', round, retest_of: retestOf, original_report_id: originalId });
    }

    const tabIds = await insertReportTabs(trx, report.id, principal.userId, doc.tabs);
    if (doc.links.length > 0) {
      await trx('report_links').insert(
        doc.links.map((l, i) => ({
          ...LINK.toColumns(LINK.pick(l)),
          report_id: report.id,
          position: i,
          created_by: principal.userId,
        })),
      );
    }
    const findingIds = await this.findings.insertIntoReport(trx, principal, { id: report.id, projectId }, doc.findings);
    await this.findings.orderBySeverity(trx, [report.id]);
    const resultIds = doc.retest
      ? await insertRetestResults(
          trx,
          report.id,
          principal.userId,
          doc.findings.map((f, i) => ({
            findingId: findingIds[i]!,
            result: withoutEvidence(f.retest ?? freshRetestResult(f.affectedAssets, 'new')),
          })),
        )
      : new Map<string, string>();

    const wanted: Array<{
      ref: EvidenceRef;
      findingId?: string;
      reportTabId?: string;
      retestResultId?: string;
      where: string;
    }> = [
      ...doc.tabs.flatMap((t, i) =>
        t.evidence.map((ref) => ({ ref, reportTabId: tabIds[i]!, where: `tab "${t.title}"` })),
      ),
      ...doc.findings.flatMap((f, i) =>
        f.evidence.map((ref) => ({ ref, findingId: findingIds[i]!, where: `finding "${f.title}"` })),
      ),
      ...doc.findings.flatMap((f, i) =>
        (f.retest?.evidence ?? []).map((ref) => ({
          ref,
          retestResultId: resultIds.get(findingIds[i]!)!,
          where: `the retest result of finding "${f.title}"`,
        })),
      ),
    ];
    let unlinkedEvidence = 0;
    if (wanted.length > 0) {
      const linked = await this.evidence.copyVisible(trx, principal, wanted);
      for (const w of wanted) {
        if (linked.has(w.ref.sha256)) continue;
        unlinkedEvidence += 1;
        warnings.push(
          `Evidence ${w.ref.fileName} (sha256 ${w.ref.sha256.slice(0, 12)}…) of ${w.where} ` +
            `is not an image you can see; it was not linked.`,
        );
      }
    }
    return { reportId: report.id, findingIds, unlinkedEvidence, warnings };
  }
}
