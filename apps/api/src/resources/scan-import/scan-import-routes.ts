import { readFile } from 'node:fs/promises';
import type { Context } from 'koa';
import { Type } from 'typebox';
import { PayloadTooLargeError, ValidationError, type UploadedFile } from '@service/http';
import { SeveritySchema, Uuid, type Severity } from '@service/report-model';
import { MATCHED_ON } from '@service/library';
import { NormalizedFindingSchema, SCAN_FORMATS, type NormalizedFinding, type ScanFormat } from '@service/scanners';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from '../idempotent-create.ts';
import { RetestImportSummarySchema } from '../retests/retest-routes.ts';
import { withinBulkLimit } from '../bulk-work.ts';
import { describeScanImport, readScanFile, readScanFindings, type ScanImportService } from './scan-import-service.ts';

export const SCAN_UPLOAD_MAX_BYTES = 4 * 1024 * 1024;

/** The upload's `format` that leaves the format to detection by content (the default). */
const DETECT_FORMAT = 'auto';
/** What an import takes without `minSeverity`: everything. */
const DEFAULT_MIN_SEVERITY: Severity = 'info';
const MinSeverity = {
  ...SeveritySchema,
  default: DEFAULT_MIN_SEVERITY,
  description: `Skip findings below this severity (default \`${DEFAULT_MIN_SEVERITY}\`: import everything).`,
};
const DRY_RUN_TEXT =
  'True: change nothing and answer what the import would do (created, merged, skipped, the library ' +
  'template each result would take and how it matched; into a retest report also the decisions). ' +
  'The import runs in a transaction that is rolled back, so the answer is exactly what importing now ' +
  'would answer, except that findings it would create have `id` null (in a `retest` part they carry ' +
  'the id they were given in the rolled-back transaction, which names no finding). Not recorded for ' +
  '`Idempotency-Key`. Default false.';
const DryRun = Type.Boolean({ default: false, description: DRY_RUN_TEXT });
const JsonBody = Type.Object(
  {
    findings: Type.Array(NormalizedFindingSchema, {
      description: 'Already-parsed findings in the normalized shape (see the NormalizedFinding schema).',
    }),
    minSeverity: Type.Optional(MinSeverity),
    dryRun: Type.Optional(DryRun),
  },
  { additionalProperties: false },
);
const UploadBody = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description: 'A Nessus (.nessus), Burp XML, Nmap XML (-oX) or Nuclei JSON/JSONL file, up to 4 MB.',
    }),
    format: Type.Optional(
      Type.Enum([DETECT_FORMAT, ...SCAN_FORMATS], {
        default: DETECT_FORMAT,
        description: `\`${DETECT_FORMAT}\` (the default): detected by content. A format overrides detection.`,
      }),
    ),
    minSeverity: Type.Optional(MinSeverity),
    dryRun: Type.Optional(
      Type.Boolean({ default: false, description: `${DRY_RUN_TEXT} As a form field: \`true\` or \`false\`.` }),
    ),
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
  dryRun: Type.Boolean({ description: 'True when this was a dry run: nothing was written.' }),
  findings: Type.Array(
    Type.Object({
      id: Type.Union([Uuid, Type.Null()], {
        description: 'The finding in the report; null when skipped, and in a dry run for a finding it would create.',
      }),
      new: Type.Boolean({
        description:
          'True when this import created the finding; false when it merged into one the report had, or skipped it.',
      }),
      outcome: Type.Enum(['created', 'merged', 'skipped']),
      mergedBy: Type.Optional(
        Type.Enum(['rule', 'template'], {
          description:
            'Why a result merged into a finding: the report already had this rule (`rule`), or the rule matched ' +
            "the template of another rule's finding (`template`): one finding per weakness, with the hosts of both.",
        }),
      ),
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
            matchedOn: Type.Enum([...MATCHED_ON], {
              description:
                'What matched: the scanner rule id the template declares, a rule of several conditions, a ' +
                'compliance result, a CVE, a title pattern, a plugin family, a CPE, a Nuclei tag, a check ' +
                'type or a CWE (see docs/library-authoring.md for the precedence).',
            }),
            detail: Type.String({
              description: 'Which one: `nessus:57608`, `CVE-2021-44228`, `CWE-89` or `/^PHP < \\d/`.',
            }),
            confidence: Type.Enum(['high', 'medium', 'low'], {
              description:
                'How sure the match is: high for the exact rule id, lower for broader rules such as a title ' +
                'pattern, a plugin family or a CWE (docs/library-authoring.md says which).',
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
  retest: Type.Optional(RetestImportSummarySchema),
});

/** The answer to a Nessus re-scan imported into a retest: one new finding, one finding partly resolved. */
const RETEST_IMPORT_EXAMPLE = {
  reportId: '9a1e4c2b-7d3f-4b6a-8c5e-2f0d1b3a4c5d',
  format: 'nessus',
  scannerVersion: '10.7.1',
  created: 1,
  merged: 0,
  skipped: 0,
  warnings: [],
  dryRun: false,
  findings: [
    {
      id: '2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f',
      new: true,
      outcome: 'created',
      title: 'Telnet Server Detection',
      severity: 'medium',
      scanner: 'nessus',
      ruleId: '10281',
      groupKey: 'nessus:10281',
      assetsAdded: 1,
      template: null,
    },
  ],
  retest: {
    round: 1,
    changed: 2,
    unchanged: 0,
    notDecided: 3,
    created: 1,
    coverage: { hosts: 1, ports: 4, origins: 0 },
    findings: [
      {
        id: '0b6f7c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b',
        title: 'SSH Weak MAC Algorithms Enabled',
        before: 'not_retested',
        after: 'partially_resolved',
        statusSetBy: 'assets',
        changed: true,
        reason:
          '1 of 2 assets no longer reported, 1 not covered by any re-scan yet. Status not_retested -> partially_resolved.',
        assets: [
          {
            host: '192.168.2.100',
            port: 22,
            protocol: 'tcp',
            before: 'not_retested',
            after: 'resolved',
            reason: 'no_longer_reported',
            rules: [],
          },
        ],
        assetsNotCovered: 1,
      },
      {
        id: '2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f',
        title: 'Telnet Server Detection',
        before: 'new',
        after: 'new',
        statusSetBy: 'assets',
        changed: true,
        reason: '1 still reported.',
        assets: [
          {
            host: '192.168.2.100',
            port: 23,
            protocol: 'tcp',
            before: null,
            after: 'new',
            reason: 'first_seen',
            rules: ['nessus:10281'],
          },
        ],
        assetsNotCovered: 0,
      },
    ],
  },
};

/** The uploaded scanner file's bytes; 400 without one, 413 above the cap. */
async function readUpload(file: UploadedFile | undefined): Promise<Buffer> {
  if (!file)
    throw new ValidationError('The form needs a file field named "file".', [{ path: '/file', message: 'is required' }]);
  if (file.size > SCAN_UPLOAD_MAX_BYTES) throw new PayloadTooLargeError('Scanner files are limited to 4 MB.');
  return readFile(file.filepath);
}

/** What an import answers besides the automatic errors; the same for a file and for JSON findings. */
const IMPORT_RESPONSES = {
  200: {
    description:
      'What the import did, per finding; into a retest report also `retest`: what the re-scan decided. The ' +
      'example is a Nessus re-scan imported into a retest.',
    schema: 'ScanImportResult',
    example: RETEST_IMPORT_EXAMPLE,
  },
  413: { description: 'The file is larger than 4 MB (`payload_too_large`).', schema: 'Error' },
  422: {
    description:
      'The file is not a scan we can read (`invalid_scan_file`, with format, line and ' +
      'column where known), or the idempotency key was reused ' +
      '(`idempotency_key_reused`).',
    schema: 'Error',
  },
  409: IDEMPOTENCY_RESPONSES[409]!,
};

const WHAT_AN_IMPORT_DOES =
  "Like the report editor's import dialog: new findings are created in " +
  "the report's project and attached; a finding the report already has (same " +
  'scanner and rule) gets the new hosts and evidence merged instead of a duplicate; ' +
  'nothing is deleted. A finding template in the finding library supplies the ' +
  'curated title, description, impact, remediation and references when it matches: ' +
  'by the scanner rule it declares (`nessus:57608`), then by CVE, then CWE, then a ' +
  'title pattern; your own templates win over global ones. The answer says what ' +
  'matched. One transaction: on any error the report is unchanged. With `dryRun` nothing is written and the ' +
  'answer says what the import would do. Needs the ' +
  "report's client on the key's allow-list. Into a retest report (`kind: retest`) the file is a re-scan: " +
  'it decides the retest results of the findings instead of merging into them (an asset still reported: ' +
  '`unresolved` with the new evidence; covered and no longer reported: `resolved`; not covered: unchanged), ' +
  'results of rules no finding has become `new` findings, and the answer has a `retest` part saying per ' +
  'finding what changed and why. Re-importing the same file changes nothing; a second file adds its ' +
  'decisions (an asset it does not cover keeps its status). Only findings whose scanner ran are decided: a ' +
  'Nessus file says nothing about a Nuclei finding or one typed by hand. "Covered" is read from the file ' +
  'itself, informational results included: Nessus: the host has results (every scanned host has at least ' +
  '"Nessus Scan Information"), and for an asset with a port, a result of that host is on that port (the ' +
  'port scanners report every open port); Nmap: the host is up with an open port, and the port is open (a ' +
  'closed or filtered port is not covered); Burp and Nuclei: the web origin (scheme, host and port) of an ' +
  "asset's URL was requested, or, for network checks, that host and port were. An asset with no port " +
  'counts as covered when its host is.';

/**
 * `POST /rest/v1/reports/{id}/import-scan-file` (a scanner file, multipart) and
 * `POST /rest/v1/reports/{id}/import-scan` (already-parsed findings, JSON; it still takes the
 * multipart upload older clients send there): into a report, in one transaction, idempotent with
 * `Idempotency-Key`. Two operations so that each has one request body, which client generators
 * need to type an upload.
 */
export function registerScanImport(app: AppContext, scans: ScanImportService): void {
  app.registry.addSchema('NormalizedFinding', NormalizedFindingSchema);
  app.registry.addSchema('ScanImportResult', ImportResult);

  const importHandler = async (
    ctx: Context,
    input: {
      params: { id: string };
      body: unknown;
      files: Record<string, UploadedFile>;
      principal: RestPrincipal;
      multipart: boolean;
    },
  ) => {
    const { params, body, files, principal, multipart } = input;
    // Checked before reading the file: a caller who may not import here learns nothing from parsing errors.
    await scans.assertCanImport(principal.tenant, principal, params.id);
    const request = body as {
      findings?: NormalizedFinding[];
      format?: ScanFormat | typeof DETECT_FORMAT;
      minSeverity?: Severity;
      dryRun?: boolean;
    };
    const format = request.format === DETECT_FORMAT ? undefined : request.format;
    const scan = multipart
      ? readScanFile(await readUpload(files.file), format)
      : readScanFindings(request.findings ?? []);
    const minSeverity = request.minSeverity ?? DEFAULT_MIN_SEVERITY;
    const bulkStatementMs = app.deps.config.bulkStatementTimeoutMs;
    if (request.dryRun) {
      ctx.body = await scans.dryRun(principal.tenant, principal, params.id, scan, { minSeverity, bulkStatementMs });
      return;
    }
    await runIdempotentCreate(ctx, principal, {
      body: multipart ? { format, minSeverity: request.minSeverity, dryRun: request.dryRun } : body,
      fingerprintExtra: scan.fingerprint,
      work: async (trx) => ({
        status: 200,
        headers: {},
        body: await withinBulkLimit(trx, bulkStatementMs, describeScanImport(scan), () =>
          scans.importInto(trx, principal, params.id, scan, { minSeverity }),
        ),
      }),
    });
  };

  defineRestRoute(app, {
    method: 'post',
    path: '/rest/v1/reports/{id}/import-scan-file',
    heavy: 'An import',
    operationId: 'importScanFile',
    summary: 'Import a scanner file into a report',
    description:
      'Multipart with one `file` (Nessus, Burp XML, Nmap XML or Nuclei JSON/JSONL, ' +
      'detected by content unless `format` says which; up to 4 MB). ' +
      WHAT_AN_IMPORT_DOES,
    tags: ['Reports'],
    params: Type.Object({ id: Uuid }),
    headers: [IDEMPOTENCY_HEADER],
    body: {
      schema: UploadBody,
      contentType: 'multipart/form-data',
      maxBytes: SCAN_UPLOAD_MAX_BYTES,
      fileFields: ['file'],
    },
    responses: IMPORT_RESPONSES,
    handler: importHandler,
  });

  defineRestRoute(app, {
    method: 'post',
    path: '/rest/v1/reports/{id}/import-scan',
    heavy: 'An import',
    operationId: 'importScan',
    summary: 'Import normalized scanner findings into a report',
    description:
      'JSON `{"findings": [...]}` of findings in the normalized shape (the ' +
      '`NormalizedFinding` schema), from a tool of your own or a parser elsewhere; for a ' +
      'scanner file, `POST /rest/v1/reports/{id}/import-scan-file`. ' +
      WHAT_AN_IMPORT_DOES,
    tags: ['Reports'],
    params: Type.Object({ id: Uuid }),
    headers: [IDEMPOTENCY_HEADER],
    body: {
      schema: JsonBody,
      legacyUpload: {
        schema: UploadBody,
        maxBytes: SCAN_UPLOAD_MAX_BYTES,
        fileFields: ['file'],
        operationId: 'importScanFile',
      },
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
    responses: IMPORT_RESPONSES,
    handler: importHandler,
  });
}
