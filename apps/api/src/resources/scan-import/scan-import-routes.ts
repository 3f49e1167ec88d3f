import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Type } from 'typebox';
import { defineRoute, PayloadTooLargeError, requestFingerprint, runIdempotent, UnprocessableError, ValidationError } from '@service/http';
import { detectFormat, normalizeFindingInput, NormalizedFindingSchema, parseScan, ScanParseError, SCAN_FORMATS, type CompleteFinding, type ScanFormat } from '@service/scanners';
import type { AppContext } from '../../app-context.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { IDEMPOTENCY_RESPONSES, type Resource } from '../define-resource.ts';
import { Severity, Uuid } from '../field.ts';
import { importFindings } from './import-findings.ts';

export const SCAN_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;

const MinSeverity = Type.Enum(['info', 'low', 'medium', 'high', 'critical'], { description: 'Skip findings below this severity (default `info`: import everything).' });
const JsonBody = Type.Object(
  {
    findings: Type.Array(NormalizedFindingSchema, { description: 'Already-parsed findings in the normalized shape (see the NormalizedFinding schema).' }),
    minSeverity: Type.Optional(MinSeverity),
  },
  { additionalProperties: false },
);
const UploadBody = Type.Object(
  {
    file: Type.Optional(Type.String({ format: 'binary', description: 'A Nessus (.nessus), Burp XML, Nmap XML (-oX) or Nuclei JSON/JSONL file, up to 4 MB.' })),
    format: Type.Optional(Type.Enum([...SCAN_FORMATS], { description: 'Overrides detection by content.' })),
    minSeverity: Type.Optional(MinSeverity),
  },
  { additionalProperties: false },
);

const ImportResult = Type.Object({
  reportId: Uuid,
  format: Type.Union([Type.Enum([...SCAN_FORMATS]), Type.Null()], { description: 'The file format; null for JSON findings.' }),
  scannerVersion: Type.Union([Type.String(), Type.Null()]),
  created: Type.Integer(),
  merged: Type.Integer(),
  skipped: Type.Integer(),
  warnings: Type.Array(Type.String()),
  findings: Type.Array(
    Type.Object({
      id: Type.Union([Uuid, Type.Null()], { description: 'The finding in the report; null when skipped.' }),
      new: Type.Boolean({ description: 'True when this import created the finding; false when it merged into one the report had, or skipped it.' }),
      outcome: Type.Enum(['created', 'merged', 'skipped']),
      title: Type.String(),
      severity: Severity,
      scanner: Type.String(),
      ruleId: Type.String(),
      groupKey: Type.String(),
      assetsAdded: Type.Integer(),
      template: Type.Union([Type.Object({ id: Uuid, title: Type.String(), matchedOn: Type.String({ description: '`<scanner>:<rule id>` or the CVE that matched.' }) }), Type.Null()]),
    }),
  ),
});

/**
 * `POST /rest/v1/reports/{id}/import-scan`: a scanner file (multipart) or already-parsed findings
 * (JSON) into a report, in one transaction, idempotent with `Idempotency-Key`.
 */
export function registerScanImport(app: AppContext, reports: Resource): void {
  app.registry.addSchema('NormalizedFinding', NormalizedFindingSchema);
  app.registry.addSchema('ScanImportResult', ImportResult);
  defineRoute(app.router, app.registry, app.routeDefaults, {
    method: 'post',
    path: '/rest/v1/reports/{id}/import-scan',
    operationId: 'import_scan',
    summary: 'Import scanner findings into a report',
    description:
      "Multipart with one `file` (Nessus, Burp XML, Nmap XML or Nuclei JSON/JSONL, detected by content; up to 4 MB), or JSON `{\"findings\": [...]}` of normalized findings. Like the report editor's import dialog: new findings are created in the report's project and attached; a finding the report already has (same scanner and rule) gets the new hosts and evidence merged instead of a duplicate; nothing is deleted. A finding template in the finding library that declares the scanner rule (`nessus:57608`) or a CVE of the finding supplies the curated title, description, remediation and references. One transaction: on any error the report is unchanged. Needs the report's client on the key's allow-list.",
    tags: ['Reports'],
    security: 'apiKey',
    params: Type.Object({ id: Uuid }),
    headers: [{ name: 'Idempotency-Key', description: 'Makes a retry safe (24 hours, per API key).', schema: { type: 'string', maxLength: 255 } }],
    body: {
      schema: JsonBody,
      multipart: { schema: UploadBody, maxBytes: SCAN_UPLOAD_MAX_BYTES, fileFields: ['file'] },
      example: { findings: [{ source: { scanner: 'nessus' }, ruleId: '57608', title: 'SMB Signing not required', severity: 'medium', occurrences: [{ asset: { id: '10.0.0.5' }, port: 445, protocol: 'tcp' }] }] },
    },
    responses: {
      200: { description: 'What the import did, per finding.', schema: 'ScanImportResult' },
      413: { description: 'The file is larger than 4 MB (`payload_too_large`).', schema: 'Error' },
      422: { description: 'The file is not a scan we can read (`invalid_scan_file`, with format, line and column where known), or the idempotency key was reused.', schema: 'Error' },
      409: IDEMPOTENCY_RESPONSES[409]!,
    },
    async handler(ctx, { params, body, files }) {
      const principal = ctx.state.principal as RestPrincipal;
      const db = principal.tenant;
      // Checked before reading the file: a caller who may not import here learns nothing from parsing errors.
      await reports.store.require(db, principal, params.id, 'import');
      const input = body as { findings?: unknown[]; format?: ScanFormat; minSeverity?: 'info' | 'low' | 'medium' | 'high' | 'critical' };

      let findings: CompleteFinding[];
      let format: ScanFormat | null = null;
      let scannerVersion: string | null = null;
      let warnings: string[] = [];
      let fingerprintExtra: string;
      if (ctx.state.multipart) {
        const file = files.file;
        if (!file) throw new ValidationError('The form needs a file field named "file".', [{ path: '/file', message: 'is required' }]);
        if (file.size > SCAN_UPLOAD_MAX_BYTES) throw new PayloadTooLargeError('Scanner files are limited to 4 MB.');
        const bytes = await readFile(file.filepath);
        format = input.format ?? detectFormat(bytes);
        if (!format) {
          throw new UnprocessableError('invalid_scan_file', 'The file is not a Nessus, Burp, Nmap or Nuclei export (its content matches none of them). Pass `format` to say which it is.', { format: null });
        }
        try {
          const result = parseScan(bytes, { format });
          findings = result.findings;
          scannerVersion = result.scannerVersion ?? null;
          warnings = result.warnings;
        } catch (err) {
          if (err instanceof ScanParseError) {
            throw new UnprocessableError('invalid_scan_file', err.message, { format: err.format ?? format, line: err.line ?? null, column: err.column ?? null });
          }
          throw err;
        }
        fingerprintExtra = createHash('sha256').update(bytes).digest('hex');
      } else {
        findings = (input.findings ?? []).map((f) => normalizeFindingInput(f as never));
        fingerprintExtra = '';
      }

      const outcome = await runIdempotent(
        db,
        {
          apiKeyId: principal.keyId,
          key: ctx.get('Idempotency-Key') || null,
          fingerprint: requestFingerprint({ method: 'POST', path: ctx.path, body: ctx.state.multipart ? { format: input.format, minSeverity: input.minSeverity } : body, extra: fingerprintExtra }),
        },
        async (trx) => {
          // Why: re-read and lock the report inside the transaction, so two imports into one report queue up instead of racing.
          const report = await reports.store.require(trx, principal, params.id, 'import', { forUpdate: true });
          const summary = await importFindings(trx, { id: report.id, projectId: report.project_id as string }, findings, { minSeverity: input.minSeverity ?? 'info' }, principal.userId);
          return {
            status: 200,
            headers: {},
            body: {
              reportId: report.id,
              format,
              scannerVersion,
              created: summary.created,
              merged: summary.merged,
              skipped: summary.skipped,
              warnings,
              findings: summary.findings.map((f) => ({ ...f, new: f.outcome === 'created' })),
            },
          };
        },
      );
      if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
      ctx.status = outcome.status;
      ctx.body = outcome.body;
    },
  });
}
