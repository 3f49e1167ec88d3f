import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Type } from 'typebox';
import { PayloadTooLargeError, UnprocessableError, ValidationError } from '@service/http';
import { SeveritySchema, Uuid, type Severity } from '@service/report-model';
import {
  detectFormat,
  normalizeFindingInput,
  NormalizedFindingSchema,
  parseScan,
  ScanParseError,
  SCAN_FORMATS,
  type CompleteFinding,
  type ScanFormat,
} from '@service/scanners';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import type { FindingRepository } from '../findings/findings-repository.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from '../idempotent-create.ts';
import type { ReportRepository } from '../reports/reports-repository.ts';

export const SCAN_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;

const MinSeverity = {
  ...SeveritySchema,
  description: 'Skip findings below this severity (default `info`: import everything).',
};
const JsonBody = Type.Object(
  {
    findings: Type.Array(NormalizedFindingSchema, {
      description: 'Already-parsed findings in the normalized shape (see the NormalizedFinding schema).',
    }),
    minSeverity: Type.Optional(MinSeverity),
  },
  { additionalProperties: false },
);
const UploadBody = Type.Object(
  {
    file: Type.Optional(
      Type.String({
        format: 'binary',
        description: 'A Nessus (.nessus), Burp XML, Nmap XML (-oX) or Nuclei JSON/JSONL file, up to 4 MB.',
      }),
    ),
    format: Type.Optional(Type.Enum([...SCAN_FORMATS], { description: 'Overrides detection by content.' })),
    minSeverity: Type.Optional(MinSeverity),
  },
  { additionalProperties: false },
);

const ImportResult = Type.Object({
  reportId: Uuid,
  format: Type.Union([Type.Enum([...SCAN_FORMATS]), Type.Null()], {
    description: 'The file format; null for JSON findings.',
  }),
  scannerVersion: Type.Union([Type.String(), Type.Null()]),
  created: Type.Integer(),
  merged: Type.Integer(),
  skipped: Type.Integer(),
  warnings: Type.Array(Type.String()),
  findings: Type.Array(
    Type.Object({
      id: Type.Union([Uuid, Type.Null()], { description: 'The finding in the report; null when skipped.' }),
      new: Type.Boolean({
        description:
          'True when this import created the finding; false when it merged into one the report had, or skipped it.',
      }),
      outcome: Type.Enum(['created', 'merged', 'skipped']),
      title: Type.String(),
      severity: SeveritySchema,
      scanner: Type.String(),
      ruleId: Type.String(),
      groupKey: Type.String(),
      assetsAdded: Type.Integer(),
      template: Type.Union(
        [
          Type.Object({
            id: Uuid,
            title: Type.String(),
            key: Type.Union([Type.String(), Type.Null()], {
              description: 'The global library key of the template; null for your own.',
            }),
            matchedOn: Type.Enum(['rule', 'cve', 'cwe', 'titlePattern'], {
              description:
                'What matched: the scanner rule id the template declares, a CVE, a CWE, or a ' +
                'title pattern (in that precedence).',
            }),
            detail: Type.String({
              description: 'Which one: `nessus:57608`, `CVE-2021-44228`, `CWE-89` or `/^PHP < \\d/`.',
            }),
          }),
          Type.Null(),
        ],
        {
          description:
            'The finding-library template whose text the new finding took; null when none ' +
            'matched, when the finding merged into an existing one, or when the caller is an ' +
            'external collaborator.',
        },
      ),
    }),
  ),
});

/**
 * `POST /rest/v1/reports/{id}/import-scan`: a scanner file (multipart) or already-parsed findings
 * (JSON) into a report, in one transaction, idempotent with `Idempotency-Key`.
 */
export function registerScanImport(
  app: AppContext,
  reports: ReportRepository,
  findingsRepository: FindingRepository,
): void {
  app.registry.addSchema('NormalizedFinding', NormalizedFindingSchema);
  app.registry.addSchema('ScanImportResult', ImportResult);
  defineRestRoute(app, {
    method: 'post',
    path: '/rest/v1/reports/{id}/import-scan',
    operationId: 'importScan',
    summary: 'Import scanner findings into a report',
    description:
      'Multipart with one `file` (Nessus, Burp XML, Nmap XML or Nuclei JSON/JSONL, ' +
      'detected by content; up to 4 MB), or JSON `{"findings": [...]}` of normalized ' +
      "findings. Like the report editor's import dialog: new findings are created in " +
      "the report's project and attached; a finding the report already has (same " +
      'scanner and rule) gets the new hosts and evidence merged instead of a duplicate; ' +
      'nothing is deleted. A finding template in the finding library supplies the ' +
      'curated title, description, impact, remediation and references when it matches: ' +
      'by the scanner rule it declares (`nessus:57608`), then by CVE, then CWE, then a ' +
      'title pattern; your own templates win over global ones. The answer says what ' +
      'matched. One transaction: on any error the report is unchanged. Needs the ' +
      "report's client on the key's allow-list.",
    tags: ['Reports'],
    params: Type.Object({ id: Uuid }),
    headers: [IDEMPOTENCY_HEADER],
    body: {
      schema: JsonBody,
      multipart: { schema: UploadBody, maxBytes: SCAN_UPLOAD_MAX_BYTES, fileFields: ['file'] },
      example: {
        findings: [
          {
            source: { scanner: 'nessus' },
            ruleId: '57608',
            title: 'SMB Signing not required',
            severity: 'medium',
            occurrences: [{ asset: { id: '10.0.0.5' }, port: 445, protocol: 'tcp' }],
          },
        ],
      },
    },
    responses: {
      200: { description: 'What the import did, per finding.', schema: 'ScanImportResult' },
      413: { description: 'The file is larger than 4 MB (`payload_too_large`).', schema: 'Error' },
      422: {
        description:
          'The file is not a scan we can read (`invalid_scan_file`, with format, line and ' +
          'column where known), or the idempotency key was reused ' +
          '(`idempotency_key_reused`).',
        schema: 'Error',
      },
      409: IDEMPOTENCY_RESPONSES[409]!,
    },
    async handler(ctx, { params, body, files, principal, multipart }) {
      // Checked before reading the file: a caller who may not import here learns nothing from parsing errors.
      await reports.require(principal.tenant, principal, params.id, 'import');
      const input = body as { findings?: unknown[]; format?: ScanFormat; minSeverity?: Severity };

      let findings: CompleteFinding[];
      let format: ScanFormat | null = null;
      let scannerVersion: string | null = null;
      let warnings: string[] = [];
      let fingerprintExtra = '';
      if (multipart) {
        const file = files.file;
        if (!file)
          throw new ValidationError('The form needs a file field named "file".', [
            { path: '/file', message: 'is required' },
          ]);
        if (file.size > SCAN_UPLOAD_MAX_BYTES) throw new PayloadTooLargeError('Scanner files are limited to 4 MB.');
        const bytes = await readFile(file.filepath);
        format = input.format ?? detectFormat(bytes);
        if (!format) {
          throw new UnprocessableError(
            'invalid_scan_file',
            'The file is not a Nessus, Burp, Nmap or Nuclei export (its content matches none ' +
              'of them). Pass `format` to say which it is.',
            [{ path: '/file', message: 'matches no supported scanner format' }],
          );
        }
        try {
          const result = parseScan(bytes, { format });
          findings = result.findings;
          scannerVersion = result.scannerVersion ?? null;
          warnings = result.warnings;
        } catch (err) {
          if (err instanceof ScanParseError) {
            const where = [err.line ? `line ${err.line}` : null, err.column ? `column ${err.column}` : null]
              .filter(Boolean)
              .join(', ');
            throw new UnprocessableError('invalid_scan_file', err.message, [
              { path: '/file', message: `${err.format ?? format}${where ? ` at ${where}` : ''}: ${err.message}` },
            ]);
          }
          throw err;
        }
        fingerprintExtra = createHash('sha256').update(bytes).digest('hex');
      } else {
        findings = (input.findings ?? []).map((f) => normalizeFindingInput(f as never));
      }

      await runIdempotentCreate(ctx, principal, {
        body: multipart ? { format: input.format, minSeverity: input.minSeverity } : body,
        fingerprintExtra,
        work: async (trx) => {
          // Why: re-read and lock the report inside the transaction, so two imports into one report queue up instead of
          // racing.
          const report = await reports.require(trx, principal, params.id, 'import', { forUpdate: true });
          const summary = await findingsRepository.mergeScanFindings(
            trx,
            principal,
            { id: report.id, projectId: report.project_id as string },
            findings,
            { minSeverity: input.minSeverity ?? 'info' },
          );
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
      });
    },
  });
}
