import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { count, withinBulkLimit } from '../bulk-work.ts';
import { UnprocessableError } from '@service/http';
import type { Severity } from '@service/report-model';
import {
  detectFormat,
  normalizeFindingInput,
  parseScan,
  ScanParseError,
  type CompleteFinding,
  type NormalizedFinding,
  type ScanFormat,
} from '@service/scanners';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { ImportedFinding } from '../findings/scan-merge-plan.ts';
import type { RetestImportSummary, RetestService } from '../retests/retest-service.ts';
import type { WorkspaceRepositories } from '../workspace-repositories.ts';

/** Scanner results ready to import: parsed from a file, or given as normalized findings. */
export interface ScanInput {
  findings: CompleteFinding[];
  /** The file format; null for JSON findings. */
  format: ScanFormat | null;
  scannerVersion: string | null;
  warnings: string[];
  /** SHA-256 of the file, so an idempotent retry must send the same bytes; empty for JSON. */
  fingerprint: string;
}

/** What an import did, per finding: the answer of `import-scan`. */
export interface ScanImportResult {
  reportId: string;
  format: ScanFormat | null;
  scannerVersion: string | null;
  created: number;
  merged: number;
  skipped: number;
  warnings: string[];
  /** True when nothing was written: what the import would do. */
  dryRun: boolean;
  findings: Array<ImportedFinding & { new: boolean }>;
  /** Into a retest report: what the re-scan decided, per finding. */
  retest?: RetestImportSummary;
}

/**
 * Reads a scanner file: detected by content unless `format` says which it is. Anything that is not
 * a scan we can read is 422 `invalid_scan_file` saying where (format, line, column).
 */
export function readScanFile(bytes: Buffer, format?: ScanFormat): ScanInput {
  const detected = format ?? detectFormat(bytes);
  if (!detected) {
    throw new UnprocessableError(
      'invalid_scan_file',
      'The file is not a Nessus, Burp, Nmap or Nuclei export (its content matches none ' +
        'of them). Pass `format` to say which it is.',
      [{ path: '/file', message: 'matches no supported scanner format' }],
    );
  }
  try {
    const result = parseScan(bytes, { format: detected });
    return {
      findings: result.findings,
      format: detected,
      scannerVersion: result.scannerVersion ?? null,
      warnings: result.warnings,
      fingerprint: createHash('sha256').update(bytes).digest('hex'),
    };
  } catch (err) {
    if (err instanceof ScanParseError) {
      const where = [err.line ? `line ${err.line}` : null, err.column ? `column ${err.column}` : null]
        .filter(Boolean)
        .join(', ');
      throw new UnprocessableError('invalid_scan_file', err.message, [
        { path: '/file', message: `${err.format ?? detected}${where ? ` at ${where}` : ''}: ${err.message}` },
      ]);
    }
    throw err;
  }
}

/** Normalized findings from a JSON body (already valid against the schema), with their defaults. */
export function readScanFindings(findings: readonly NormalizedFinding[]): ScanInput {
  return {
    findings: findings.map(normalizeFindingInput),
    format: null,
    scannerVersion: null,
    warnings: [],
    fingerprint: '',
  };
}

/**
 * Imports scanner results into a report, like the report editor's import dialog (see
 * `FindingRepository.mergeScanFindings`), in the caller's transaction with the report locked.
 */
export class ScanImportService {
  constructor(
    private readonly repositories: Pick<WorkspaceRepositories, 'reports' | 'findings' | 'findingTemplates'>,
    private readonly retests: RetestService,
  ) {}

  /** Fails with 404 or 403 unless the caller may import into the report (checked before reading a file). */
  async assertCanImport(db: Knex, principal: RestPrincipal, reportId: string): Promise<void> {
    await this.repositories.reports.require(db, principal, reportId, 'import');
  }

  async importInto(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    reportId: string,
    scan: ScanInput,
    options: { minSeverity: Severity },
  ): Promise<ScanImportResult> {
    // Why lock: two imports into one report queue up instead of racing.
    const report = await this.repositories.reports.require(trx, principal, reportId, 'import', { forUpdate: true });
    const results = await this.repositories.findingTemplates.matchScanResults(
      trx,
      principal,
      scan.findings,
      report.language,
    );
    // Why a path of its own: a re-scan into a retest decides the findings it has instead of merging into them.
    if (report.kind === 'retest') {
      const rescan = await this.retests.importRescan(
        trx,
        principal,
        { id: report.id, projectId: report.project_id, language: report.language, round: report.round },
        results,
        options,
      );
      return {
        reportId: report.id,
        format: scan.format,
        scannerVersion: scan.scannerVersion,
        created: rescan.created,
        merged: rescan.findings.filter((f) => f.outcome === 'merged').length,
        skipped: rescan.skipped,
        warnings: [...scan.warnings, ...rescan.notes],
        dryRun: false,
        findings: rescan.findings.map((f) => ({ ...f, new: f.outcome === 'created' })),
        retest: rescan.retest,
      };
    }
    const summary = await this.repositories.findings.mergeScanFindings(
      trx,
      principal,
      { id: report.id, projectId: report.project_id, language: report.language },
      results,
      options,
    );
    return {
      reportId: report.id,
      format: scan.format,
      scannerVersion: scan.scannerVersion,
      created: summary.created,
      merged: summary.merged,
      skipped: summary.skipped,
      warnings: [...scan.warnings, ...summary.notes],
      dryRun: false,
      findings: summary.findings.map((f) => ({ ...f, new: f.outcome === 'created' })),
    };
  }

  /**
   * What importing would do, with nothing written: the import runs as it would, in a transaction
   * that is rolled back, so the answer (created, merged, skipped, the template matched and how,
   * a re-scan's decisions) is exactly the import's. Findings it would create have no id.
   */
  async dryRun(
    db: Knex,
    principal: RestPrincipal,
    reportId: string,
    scan: ScanInput,
    options: { minSeverity: Severity; bulkStatementMs: number },
  ): Promise<ScanImportResult> {
    const trx = await db.transaction();
    try {
      const result = await withinBulkLimit(trx, options.bulkStatementMs, describeScanImport(scan), () =>
        this.importInto(trx, principal, reportId, scan, options),
      );
      return {
        ...result,
        dryRun: true,
        findings: result.findings.map((f) => (f.outcome === 'created' ? { ...f, id: null } : f)),
      };
    } finally {
      await trx.rollback();
    }
  }
}

/** An import and its size, for a message: `Importing 50,000 scanner results`. */
export function describeScanImport(scan: ScanInput): string {
  return `Importing ${count(scan.findings.length)} scanner results`;
}
