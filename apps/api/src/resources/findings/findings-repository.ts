import type { Knex } from 'knex';
import { ForbiddenError } from '@service/http';
import {
  applyTemplateContent,
  FINDING_COLUMNS,
  FINDING_FIELDS,
  findingFieldsToColumns,
  findingFromColumns,
  mergeAffectedAssets,
  maxSeverity,
  SEVERITIES,
  severityRank,
  TEXT_LIMITS,
  type Finding,
  type FindingColumns,
  type FindingFieldName,
  type Severity,
} from '@service/report-model';
import { findingOfScanResult, type CompleteFinding } from '@service/scanners';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { StoredFiles } from '@service/storage';
import { evidenceCleanup } from '../evidence-images/evidence-repository.ts';
import type { FindingTemplateRepository, TemplateMatch } from '../finding-library/finding-template-repository.ts';
import { ResourceRepository } from '../resource-repository.ts';
import { ensureRetestResults } from '../retests/retest-repository.ts';
import { TableStatistics } from '../table-statistics.ts';
import { findingsDeclaration } from './findings-resource.ts';

export interface ScanImportOptions {
  /** Findings below this severity are skipped. */
  minSeverity: Severity;
  /**
   * Default true: results merge into the report's findings of the same rule or template. False
   * (a retest's new results): they only create findings, and the report's findings stay as they are.
   */
  intoExisting?: boolean;
}

export interface ImportedFinding {
  id: string | null;
  title: string;
  severity: Severity;
  scanner: string;
  ruleId: string;
  groupKey: string;
  outcome: 'created' | 'merged' | 'skipped';
  /**
   * Why a result merged into a finding: the finding already had this rule (`rule`), or the rule
   * matched the template another rule's finding came from (`template`: one finding per weakness).
   */
  mergedBy?: 'rule' | 'template';
  /** Places (host, port, URL...) added to the finding by this import. */
  assetsAdded: number;
  template: {
    id: string;
    title: string;
    key: string | null;
    matchedOn: TemplateMatch['matchedOn'];
    confidence: TemplateMatch['confidence'];
    detail: string;
  } | null;
}

export interface ScanImportSummary {
  created: number;
  merged: number;
  skipped: number;
  findings: ImportedFinding[];
  /** What the import decided that a person should know: a template's CVSS left out, a missing translation. */
  notes: string[];
}

/** `<scanner>:<group key>`: the identity of a scanner finding within a report across imports. */
export function scannerKey(f: CompleteFinding): string {
  return `${f.source.scanner.toLowerCase()}:${f.groupKey}`;
}

const unique = <T>(values: readonly T[]) => [...new Set(values)];
/** A union of lists kept within the model's cap for that list. */
const union = <T>(cap: number, ...lists: ReadonlyArray<readonly T[]>) => unique(lists.flat()).slice(0, cap);

/** Finding columns of a finding of the report model, for inserts. */
export function findingColumns(f: Finding, projectId: string, userId: string): Record<string, unknown> {
  return { ...findingFieldsToColumns(f), project_id: projectId, created_by: userId };
}

type FindingsDeclaration = ReturnType<typeof findingsDeclaration>;

/** Findings: the generic reads and writes, plus attaching to reports and merging scanner results. */
export class FindingRepository extends ResourceRepository<FindingsDeclaration['fields'], { report_ids: string[] }> {
  constructor(
    files: StoredFiles,
    private readonly templates: FindingTemplateRepository,
    private readonly statistics = new TableStatistics(),
  ) {
    super(
      findingsDeclaration({
        attach: (trx, reportId, findingId, userId) => this.attach(trx, reportId, findingId, userId),
        reorder: async (trx, findingId) =>
          this.orderBySeverity(
            trx,
            (await trx('report_findings').where({ finding_id: findingId }).pluck('report_id')) as string[],
          ),
        beforeDelete: async (trx, row, principal) => {
          // Why: an external collaborator edits what is shared with them, but a finding that also
          // sits in a report they cannot see is not theirs to remove from that report.
          if (principal.role === 'external' && (await this.inInvisibleReport(trx, principal, row.id))) {
            throw new ForbiddenError(
              'forbidden',
              'This finding is also part of a report that is not shared with you; it cannot be deleted.',
            );
          }
          return evidenceCleanup(files, trx, principal, { findingId: row.id });
        },
      }),
    );
  }

  /** The position after the last finding attached to a report. */
  async nextPosition(trx: Knex, reportId: string): Promise<number> {
    const [{ next }] = await trx('report_findings')
      .where({ report_id: reportId })
      .select(trx.raw('coalesce(max(position) + 1, 0) as next'));
    return Number(next);
  }

  /** Adds a finding to a report's findings, in its place (no-op when it is attached already). */
  async attach(trx: Knex, reportId: string, findingId: string, userId: string): Promise<void> {
    const position = await this.nextPosition(trx, reportId);
    await trx('report_findings')
      .insert({ report_id: reportId, finding_id: findingId, position, created_by: userId })
      .onConflict(['report_id', 'finding_id'])
      .ignore();
    // Why: a finding added to a retest was first seen in the retest; it gets its result (`new`).
    await ensureRetestResults(trx, reportId, userId);
    await this.orderBySeverity(trx, [reportId]);
  }

  /**
   * Puts the findings of those reports that are kept in severity order (`finding_order`
   * `severity`) in that order: worst severity first, then the highest CVSS base score of the
   * newest version, then title; ties keep their order. One statement; rows already in their
   * place are not written. Reports in manual order are left alone.
   */
  async orderBySeverity(trx: Knex, reportIds: readonly string[]): Promise<void> {
    if (reportIds.length === 0) return;
    await trx.raw(
      `update report_findings rf set position = o.n
         from (select rf2.id, row_number() over (partition by rf2.report_id order by
                 array_position(?::text[], f.severity) desc,
                 (select (e->>'baseScore')::numeric from jsonb_array_elements(f.cvss) e
                   where e->>'baseScore' is not null order by e->>'version' desc limit 1) desc nulls last,
                 lower(f.title), f.title, rf2.position, rf2.id) - 1 as n
                 from report_findings rf2
                 join findings f on f.id = rf2.finding_id
                 join reports r on r.id = rf2.report_id and r.finding_order = 'severity'
                where rf2.report_id = any(?::uuid[])) o
        where rf.id = o.id and rf.position <> o.n`,
      [[...SEVERITIES], [...new Set(reportIds)]],
    );
  }

  /** Creates findings of the report model in a project and attaches them, in order, to a report. */
  insertIntoReport(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    report: { id: string; projectId: string },
    findings: readonly Finding[],
  ): Promise<string[]> {
    return this.insertAttached(
      trx,
      principal.tenant,
      report.id,
      principal.userId,
      // Why built batch by batch: the rows of 50,000 findings would otherwise all be held at once.
      { length: findings.length, at: (i) => findingColumns(findings[i]!, report.projectId, principal.userId) },
    );
  }

  /**
   * Inserts finding rows in batches and attaches them, in order, after the report's last finding;
   * a bulk insert has the statistics of both tables refreshed once `trx` commits (on `db`).
   */
  private async insertAttached(
    trx: Knex.Transaction,
    db: Knex,
    reportId: string,
    userId: string,
    rows: { length: number; at: (i: number) => Record<string, unknown> },
  ): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < rows.length; i += 500) {
      const batch: Record<string, unknown>[] = [];
      for (let j = i; j < Math.min(i + 500, rows.length); j++) batch.push(rows.at(j));
      const inserted = await trx('findings').insert(batch).returning('id');
      ids.push(...inserted.map((r: { id: string }) => r.id));
    }
    const next = await this.nextPosition(trx, reportId);
    const attach = ids.map((id, i) => ({
      report_id: reportId,
      finding_id: id,
      position: next + i,
      created_by: userId,
    }));
    for (let i = 0; i < attach.length; i += 1000) await trx('report_findings').insert(attach.slice(i, i + 1000));
    this.statistics.refreshAfterCommit(trx, db, { analyze: ['findings'], vacuum: ['report_findings'] }, ids.length);
    return ids;
  }

  private async inInvisibleReport(trx: Knex, principal: RestPrincipal, findingId: string): Promise<boolean> {
    const hidden = await trx('report_findings as rf')
      .join('reports as rr', 'rr.id', 'rf.report_id')
      .where('rf.finding_id', findingId)
      .whereNotExists((q) =>
        q
          .select(trx.raw('1'))
          .from('grants as g')
          .where('g.user_id', principal.userId)
          .andWhere((w) =>
            w
              .where((x) => x.where('g.resource_type', 'report').andWhereRaw('g.resource_id = rr.id'))
              .orWhere((x) => x.where('g.resource_type', 'project').andWhereRaw('g.resource_id = rr.project_id')),
          ),
      )
      .first('rf.id');
    return hidden !== undefined;
  }

  /**
   * Imports scanner findings into a report, like the report editor's import dialog:
   * - a result the report already has (same scanner and group key) merges its new places and
   *   evidence into that finding;
   * - results that match one library template become one finding (several scanner rules for
   *   one weakness), also with a finding the report already has from that template;
   * - others are created in the report's project, with the matching template's curated text
   *   in the report's language when there is one (never for external collaborators: the
   *   library is not theirs), and attached in their place.
   * Nothing is deleted or overwritten. Runs in the caller's transaction.
   */
  async mergeScanFindings(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    report: { id: string; projectId: string; language: string },
    findings: readonly CompleteFinding[],
    options: ScanImportOptions,
  ): Promise<ScanImportSummary> {
    const summary: ScanImportSummary = { created: 0, merged: 0, skipped: 0, findings: [], notes: [] };
    const grouped = new Map<string, { result: CompleteFinding; finding: Finding }>();
    for (const f of findings) {
      if (severityRank(f.severity) < severityRank(options.minSeverity)) {
        summary.skipped += 1;
        summary.findings.push({
          ...resultBase(f),
          title: f.title,
          severity: f.severity,
          id: null,
          outcome: 'skipped',
          assetsAdded: 0,
          template: null,
        });
        continue;
      }
      // The same group key twice in one payload (hand-written JSON) is one finding.
      const key = scannerKey(f);
      const seen = grouped.get(key);
      const finding = findingOfScanResult(f, report.language);
      if (!seen) grouped.set(key, { result: f, finding });
      else seen.finding = mergeScannerFinding(seen.finding, finding).finding;
    }
    if (grouped.size === 0) return summary;

    const inReport = () =>
      trx('findings as f')
        .join('report_findings as rf', 'rf.finding_id', 'f.id')
        .where('rf.report_id', report.id)
        .select('f.id', 'f.scanner_keys', ...FINDING_COLUMNS.map((c) => `f.${c}`));
    type Existing = FindingColumns & { id: string; scanner_keys: string[] };
    const byKey = new Map<string, Existing>();
    const intoExisting = options.intoExisting ?? true;
    if (intoExisting)
      for (const row of (await inReport().whereRaw('f.scanner_keys && ?::text[]', [[...grouped.keys()]])) as Existing[])
        for (const k of row.scanner_keys) byKey.set(k, row);
    const fresh = [...grouped].filter(([key]) => !byKey.has(key)).map(([, g]) => g.result);
    const matches: Map<string, TemplateMatch> =
      principal.role === 'external' ? new Map() : await this.templates.matchScanFindings(trx, fresh, report.language);
    const templateIds = [...new Set([...matches.values()].map((m) => m.template.id))];
    const byTemplate = new Map<string, Existing>();
    if (intoExisting && templateIds.length > 0)
      for (const row of (await inReport().whereRaw("f.source->>'templateId' = any(?::text[])", [
        templateIds,
      ])) as Existing[])
        if (!byTemplate.has(row.source.templateId!)) byTemplate.set(row.source.templateId!, row);

    // One target per finding this import writes: an existing row, or a new finding (one per template).
    interface Target {
      id: string | null;
      finding: Finding;
      keys: string[];
      existing: boolean;
      changed: boolean;
      entries: ImportedFinding[];
    }
    const targets: Target[] = [];
    const existingTarget = new Map<string, Target>();
    const newByTemplate = new Map<string, Target>();
    const targetOf = (row: Existing): Target => {
      let target = existingTarget.get(row.id);
      if (!target) {
        target = {
          id: row.id,
          finding: findingFromColumns(row),
          keys: row.scanner_keys,
          existing: true,
          changed: false,
          entries: [],
        };
        existingTarget.set(row.id, target);
        targets.push(target);
      }
      return target;
    };
    for (const [key, { result, finding }] of grouped) {
      const match = matches.get(key);
      const t = match?.template;
      const templateInfo = t
        ? {
            id: t.id,
            title: t.content.title,
            key: t.globalKey,
            matchedOn: match!.matchedOn,
            detail: match!.detail,
            confidence: match!.confidence,
          }
        : null;
      const known = byKey.get(key) ?? (t ? byTemplate.get(t.id) : undefined);
      const target = known ? targetOf(known) : t ? newByTemplate.get(t.id) : undefined;
      if (target) {
        // Why: the same rule again, or another rule for the weakness a finding already stands for.
        const merged = mergeScannerFinding(target.finding, finding);
        target.finding = merged.finding;
        target.changed ||= merged.changed || !target.keys.includes(key);
        if (!target.keys.includes(key)) target.keys.push(key);
        target.entries.push({
          ...resultBase(result),
          id: target.id,
          title: target.finding.title,
          severity: target.finding.severity,
          outcome: 'merged',
          mergedBy: byKey.has(key) ? 'rule' : 'template',
          assetsAdded: merged.assetsAdded,
          template: byKey.has(key) ? null : templateInfo,
        });
        continue;
      }
      let created = finding;
      if (t) {
        const applied = applyTemplateContent(finding, t.content);
        created = applied.finding;
        created.source = { ...created.source, templateId: t.id, ...(t.globalKey ? { templateKey: t.globalKey } : {}) };
        for (const note of applied.notes) summary.notes.push(`${result.source.scanner}:${result.ruleId}: ${note}`);
        if (t.untranslated)
          summary.notes.push(
            `${result.source.scanner}:${result.ruleId}: the template "${t.content.title}" has no text in ` +
              `${report.language}; its ${t.untranslated} text was used.`,
          );
      }
      const newTarget: Target = {
        id: null,
        finding: created,
        keys: [key],
        existing: false,
        changed: true,
        entries: [],
      };
      newTarget.entries.push({
        ...resultBase(result),
        id: null,
        title: created.title,
        severity: created.severity,
        outcome: 'created',
        assetsAdded: created.affectedAssets.length,
        template: templateInfo,
      });
      targets.push(newTarget);
      if (t) newByTemplate.set(t.id, newTarget);
    }

    const updates = targets
      .filter((t) => t.existing && t.changed)
      .map((t) => ({ id: t.id!, values: pick(t.finding, MERGED_FIELDS), keys: t.keys }));
    if (updates.length > 0) await this.updateInBulk(trx, MERGED_FIELDS, updates);
    const created = targets.filter((t) => !t.existing);
    if (created.length > 0) {
      const ids = await this.insertAttached(trx, principal.tenant, report.id, principal.userId, {
        length: created.length,
        at: (i) => ({
          ...findingColumns(created[i]!.finding, report.projectId, principal.userId),
          scanner_key: created[i]!.keys[0],
          scanner_keys: created[i]!.keys,
        }),
      });
      created.forEach((t, i) => (t.id = ids[i]!));
    }
    await this.orderBySeverity(trx, [report.id]);
    for (const target of targets)
      for (const entry of target.entries) summary.findings.push({ ...entry, id: target.id });
    summary.created = summary.findings.filter((r) => r.outcome === 'created').length;
    summary.merged = summary.findings.filter((r) => r.outcome === 'merged').length;
    return summary;
  }

  /**
   * Sets the given fields of many findings in one statement: the rows travel as one JSON array
   * read as `findings` records, so every column keeps its type (text[], integer[], jsonb).
   */
  private async updateInBulk(
    trx: Knex.Transaction,
    fields: readonly FindingFieldName[],
    rows: ReadonlyArray<{ id: string; values: Partial<Finding>; keys: string[] }>,
  ): Promise<void> {
    const columns = [...fields.map((name) => FINDING_FIELDS[name].column), 'scanner_keys'];
    const records = rows.map((r) => ({
      id: r.id,
      ...findingFieldsToColumns(r.values, { jsonb: 'value' }),
      scanner_keys: r.keys,
    }));
    await trx.raw(
      `update findings f set ${columns.map(() => '?? = v.??').join(', ')}, updated_at = ${NEXT_UPDATED_AT}
       from jsonb_populate_recordset(null::findings, ?::jsonb) as v where f.id = v.id`,
      [...columns.flatMap((c) => [c, c]), JSON.stringify(records)],
    );
  }
}

/** The scanner rule an answer entry is about. */
function resultBase(f: CompleteFinding) {
  return { scanner: f.source.scanner, ruleId: f.ruleId, groupKey: f.groupKey };
}

/** What a re-import adds to a finding a report already has: places and evidence, CVEs and CWEs. */
const MERGED_FIELDS = ['affectedAssets', 'cves', 'cwes'] as const;
type MergedField = (typeof MERGED_FIELDS)[number];

const NEXT_UPDATED_AT =
  "greatest(date_trunc('milliseconds', clock_timestamp()), f.updated_at + interval '1 millisecond')";

function pick<T, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, value[k]])) as Pick<T, K>;
}

/**
 * A finding with another scanner result of the same rule merged in: new places appended (with
 * evidence at known places), CVEs and CWEs joined, the higher severity; nothing removed.
 */
function mergeScannerFinding(
  current: Finding,
  incoming: Finding,
): { finding: Finding; changed: boolean; assetsAdded: number } {
  const assets = mergeAffectedAssets(current.affectedAssets, incoming.affectedAssets);
  const cves = union(TEXT_LIMITS.cves, current.cves, incoming.cves);
  const cwes = union(TEXT_LIMITS.cwes, current.cwes, incoming.cwes);
  const changed = assets.changed || cves.length !== current.cves.length || cwes.length !== current.cwes.length;
  return {
    finding: {
      ...current,
      affectedAssets: assets.assets,
      cves,
      cwes,
      severity: maxSeverity(current.severity, incoming.severity),
    },
    changed,
    assetsAdded: assets.added,
  };
}
