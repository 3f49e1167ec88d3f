import type { Knex } from 'knex';
import { ForbiddenError } from '@service/http';
import {
  freshRetestResult,
  REPORT,
  retestReportFields,
  tabOfTemplate,
  type AffectedAsset,
  type ReportTemplateTab,
  type RetestStatus,
  type RetestStatusSource,
  type Severity,
} from '@service/report-model';
import { scanCoverageOf } from '@service/scanners';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { MatchedScanResult } from '../finding-library/finding-template-repository.ts';
import { assertAllowed } from '../access.ts';
import { scannerKey, type ImportedFinding } from '../findings/scan-merge-plan.ts';
import { insertReportTabs } from '../report-tabs/insert-report-tabs.ts';
import type { Row } from '../resource-declaration.ts';
import type { WorkspaceRepositories } from '../workspace-repositories.ts';
import {
  decideFinding,
  explainDecision,
  reportedPlaces,
  resultsByKey,
  scannersOfKeys,
  type AssetDecision,
} from './retest-decisions.ts';
import { ensureRetestResults, insertRetestResults, readRetestResults, withoutEvidence } from './retest-repository.ts';

/** The tabs of a retest when neither the project type nor the library has a retest report template. */
export const DEFAULT_RETEST_TABS: readonly ReportTemplateTab[] = [
  {
    title: 'Retest summary',
    content:
      'This retest checked whether the findings of the earlier report have been fixed. Each finding below ' +
      'carries its retest status, per affected asset, with the evidence of the retest.',
  },
  {
    title: 'Scope of the retest',
    content: 'The findings of the earlier report, on the same targets. No new areas were tested.',
  },
  {
    title: 'Method',
    content:
      'Each finding was retested with the method of the original test (for scanner findings: the same ' +
      'scanner against the same targets), and each affected asset was recorded as resolved or still open.',
  },
];

/** One finding the re-scan could decide: its status before and after, and what changed and why. */
export interface RetestFindingDecision {
  id: string;
  title: string;
  before: RetestStatus;
  after: RetestStatus;
  statusSetBy: RetestStatusSource;
  changed: boolean;
  reason: string;
  assets: AssetDecision[];
  assetsNotCovered: number;
}

/** What a re-scan did to a retest: the `retest` part of the import's answer. */
export interface RetestImportSummary {
  round: number;
  /** Findings whose retest result changed. */
  changed: number;
  /** Findings the scan could decide (its scanner reported them originally) whose result stayed as it was. */
  unchanged: number;
  /** Findings the scan says nothing about: other scanners' findings and findings typed by hand. */
  notDecided: number;
  /** Findings first seen in this import (`new`). */
  created: number;
  /** What the scan covered: hosts, host-and-port pairs, web origins. */
  coverage: { hosts: number; ports: number; origins: number };
  findings: RetestFindingDecision[];
}

export interface RetestImportResult {
  created: number;
  skipped: number;
  findings: ImportedFinding[];
  notes: string[];
  retest: RetestImportSummary;
}

/**
 * Retests: creating the next round of a report, and deciding its findings from a re-scan. Runs
 * in the caller's transaction.
 */
export class RetestService {
  constructor(
    private readonly repositories: Pick<WorkspaceRepositories, 'reports' | 'projects' | 'findings' | 'retestResults'>,
  ) {}

  /**
   * Creates the retest of a report (the next round when it is a retest itself): a report of kind
   * `retest` in the same project, with the retest template's tabs, the style of the round before,
   * and every finding of the round before with a fresh result (`not_retested` on every asset).
   * It edits the client (allow-list) and needs the right to create reports in the project.
   */
  async createRetest(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    reportId: string,
    input: { title?: string },
  ): Promise<Row> {
    const { reports, projects } = this.repositories;
    const before = await reports.require(trx, principal, reportId, 'update', { forUpdate: true });
    const project = await projects.find(trx, principal, before.project_id);
    // Why 403 and not 404: the caller sees the report; only its project (where the retest goes) is not theirs.
    if (!project)
      throw new ForbiddenError(
        'forbidden',
        'A retest is a new report in the project; you can only create one when the project is shared with you.',
      );
    assertAllowed(principal, 'create', projects.access(project), 'project');
    const originalId = before.kind === 'retest' ? before.original_report_id : before.id;
    const original = originalId ? await reports.find(trx, principal, originalId) : null;
    // Why the original's counter: rounds are numbered per original, and two retests of it made at
    // once (of the original, or of two of its rounds) must not both take the round after `before`.
    const round = await reports.takeRetestRound(
      trx,
      originalId ?? before.id,
      before.kind === 'retest' ? before.round + 1 : 1,
    );
    const baseTitle = original?.title ?? before.title;
    const title = input.title ?? `${round === 1 ? 'Retest' : `Retest ${round}`}: ${baseTitle}`.slice(0, 500);

    const report = await reports.create(trx, principal, {
      projectId: before.project_id,
      ...retestReportFields(REPORT.fromColumns(before), { title }),
    });
    const template = await this.retestTemplate(trx, principal, String(project.project_type ?? ''), before.language);
    await trx('reports')
      .where({ id: report.id })
      .update({
        kind: 'retest',
        round,
        retest_of: before.id,
        original_report_id: originalId ?? before.id,
        // Why the style of the round before: the client gets the retest in the look of the report it follows.
        style_id: before.style_id ?? template?.style_id ?? null,
        template_id: template?.id ?? null,
      });
    await insertReportTabs(
      trx,
      report.id,
      principal.userId,
      (template?.tabs ?? DEFAULT_RETEST_TABS).map(tabOfTemplate),
    );

    const carried: Array<{ finding_id: string; position: number; affected_assets: AffectedAsset[] }> = await trx(
      'report_findings as rf',
    )
      .join('findings as f', 'f.id', 'rf.finding_id')
      .where('rf.report_id', before.id)
      .orderBy([{ column: 'rf.position' }, { column: 'rf.created_at' }, { column: 'rf.finding_id' }])
      .select('rf.finding_id', 'rf.position', 'f.affected_assets');
    for (let i = 0; i < carried.length; i += 1000)
      await trx('report_findings').insert(
        carried.slice(i, i + 1000).map((c) => ({
          report_id: report.id,
          finding_id: c.finding_id,
          position: c.position,
          created_by: principal.userId,
        })),
      );
    await insertRetestResults(
      trx,
      report.id,
      principal.userId,
      carried.map((c) => ({
        findingId: c.finding_id,
        result: withoutEvidence(freshRetestResult(c.affected_assets, 'not_retested')),
      })),
    );
    return (await reports.find(trx, principal, report.id))!;
  }

  /**
   * The report template of a retest: the retest template of the project's type (`projectType`
   * naming a project type by id, library key or name), else the library's `retest-report`, else
   * none (the default tabs). External collaborators never use the library.
   */
  private async retestTemplate(
    trx: Knex,
    principal: RestPrincipal,
    projectType: string,
    language: string,
  ): Promise<{ id: string; tabs: ReportTemplateTab[]; style_id: string | null } | null> {
    if (principal.role === 'external') return null;
    let templateId: string | null = null;
    if (projectType !== '') {
      const type = await trx('project_types')
        .where((q) =>
          q
            .whereRaw('id::text = ?', [projectType])
            .orWhere('global_key', projectType)
            .orWhereRaw('lower(name) = lower(?)', [projectType]),
        )
        .whereNotNull('retest_report_template_id')
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .first('retest_report_template_id');
      templateId = type?.retest_report_template_id ?? null;
    }
    type TemplateRow = { id: string; tabs: ReportTemplateTab[]; style_id: string | null; global_key: string | null };
    const columns = ['id', 'tabs', 'style_id', 'global_key', 'language'];
    const found: (TemplateRow & { language: string | null }) | undefined = await trx('report_templates')
      .where(templateId ? { id: templateId } : { global_key: 'retest-report' })
      .first(columns);
    // Why by language: the library's retest report template comes in English (`retest-report`) and
    // German (`retest-report-de`); a German report's retest gets the German one where it exists.
    const primary = language.split('-')[0]!.toLowerCase();
    let template: TemplateRow | undefined = found;
    if (found?.global_key && (found.language ?? 'en').split('-')[0]!.toLowerCase() !== primary)
      template =
        (await trx('report_templates')
          .where({ global_key: `${found.global_key}-${primary}` })
          .first(columns)) ?? found;
    return template ?? null;
  }

  /**
   * A re-scan imported into a retest report (locked by the caller): results of a rule no
   * finding has become findings first seen in the retest (`new`); then every finding whose
   * scanner ran gets its assets decided (see retest-decisions.ts). Nothing of the findings
   * themselves changes: the re-scan's evidence goes to the retest results.
   */
  async importRescan(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    report: { id: string; projectId: string; language: string; round: number },
    matched: readonly MatchedScanResult[],
    options: { minSeverity: Severity },
  ): Promise<RetestImportResult> {
    const results = matched.map((m) => m.result);
    const attached = async () =>
      (await trx('report_findings as rf')
        .join('findings as f', 'f.id', 'rf.finding_id')
        .where('rf.report_id', report.id)
        .orderBy([{ column: 'rf.position' }, { column: 'f.id' }])
        .select('f.id', 'f.title', 'f.scanner_keys')) as Array<{ id: string; title: string; scanner_keys: string[] }>;
    const known = new Set((await attached()).flatMap((f) => f.scanner_keys));
    const fresh = matched.filter((m) => !known.has(scannerKey(m.result)));
    const imported = await this.repositories.findings.mergeScanFindings(trx, principal, report, fresh, {
      minSeverity: options.minSeverity,
      intoExisting: false,
    });
    await ensureRetestResults(trx, report.id, principal.userId);

    const byKey = resultsByKey(results, scannerKey);
    const coverage = scanCoverageOf(results);
    const stored = await readRetestResults(trx, report.id);
    const summary: RetestImportSummary = {
      round: report.round,
      changed: 0,
      unchanged: 0,
      notDecided: 0,
      created: imported.created,
      coverage: coverage.counts(),
      findings: [],
    };
    const writes: Array<{ id: string; status: RetestStatus; assets: import('@service/report-model').RetestAsset[] }> =
      [];
    for (const finding of await attached()) {
      const record = stored.get(finding.id);
      const decision = record
        ? decideFinding(
            record.result,
            reportedPlaces(finding.scanner_keys, byKey),
            coverage,
            scannersOfKeys(finding.scanner_keys),
          )
        : null;
      if (!record || !decision) {
        summary.notDecided += 1;
        continue;
      }
      if (decision.changed) {
        summary.changed += 1;
        writes.push({ id: record.id, status: decision.status, assets: decision.assets });
      } else summary.unchanged += 1;
      summary.findings.push({
        id: finding.id,
        title: finding.title,
        before: record.result.status,
        after: decision.status,
        statusSetBy: record.result.statusSetBy,
        changed: decision.changed,
        reason: explainDecision(record.result.status, decision, record.result.statusSetBy),
        assets: decision.decisions,
        assetsNotCovered: decision.notCovered,
      });
    }
    await this.repositories.retestResults.writeDecisions(trx, writes);
    return {
      created: imported.created,
      skipped: imported.skipped,
      findings: imported.findings,
      notes: imported.notes,
      retest: summary,
    };
  }
}
