import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Context } from 'koa';
import { Type } from 'typebox';
import { ValidationError, type UploadedFile } from '@service/http';
import { MARKDOWN_LIMITS } from '@service/markdown';
import { Uuid } from '@service/report-model';
import { count, withinBulkLimit } from '../bulk-work.ts';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from '../idempotent-create.ts';
import type { MarkdownImportService } from './markdown-import-service.ts';

const MB = 1024 * 1024;
const ProjectIdField = {
  ...Uuid,
  description:
    'The project the new report goes into. Without it, the project whose name and ' +
    'client name match those in the file (exactly one must match).',
};

const JsonBody = Type.Object(
  {
    markdown: Type.String({ minLength: 1, description: 'The report file as text.' }),
    projectId: Type.Optional(ProjectIdField),
  },
  { additionalProperties: false },
);
const UploadBody = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description: `The report file (UTF-8), up to ${MARKDOWN_LIMITS.reportBytes / MB} MB.`,
    }),
    projectId: Type.Optional(ProjectIdField),
  },
  { additionalProperties: false },
);

const ImportMarkdownResult = Type.Object({
  reportId: Uuid,
  projectId: Uuid,
  tabs: Type.Integer(),
  links: Type.Integer(),
  findings: Type.Integer(),
  evidenceLinked: Type.Integer({ description: 'Evidence references re-linked to images you can see.' }),
  warnings: Type.Array(Type.String(), {
    description:
      'What the import ignored or could not do: unknown keys, evidence images you ' +
      'cannot see, styles or templates not in your library.',
  }),
});

/** The uploaded file's path (read by the reader's worker, so the service never holds its bytes). */
function uploadedFile(file: UploadedFile | undefined): { file: string } {
  if (!file)
    throw new ValidationError('The form needs a file field named "file".', [{ path: '/file', message: 'is required' }]);
  return { file: file.filepath };
}

/** SHA-256 of the text or of the file, read in chunks. */
async function sha256Of(source: string | { file: string }): Promise<string> {
  const hash = createHash('sha256');
  if (typeof source === 'string') return hash.update(source).digest('hex');
  for await (const chunk of createReadStream(source.file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const IMPORT_RESPONSES = {
  201: {
    description: 'The report was created.',
    schema: 'ImportMarkdownResult',
    headers: { Location: { description: 'The new report.' } },
  },
  ...IDEMPOTENCY_RESPONSES,
  422: {
    description:
      'The file is not in the format (`invalid_markdown`: `details[0].message` names ' +
      'line, column and what was expected), the project does not exist or is not ' +
      'visible or no single project matches the names in the file ' +
      '(`invalid_reference`), or the idempotency key was reused ' +
      '(`idempotency_key_reused`).',
    schema: 'Error',
  },
};

const WHAT_AN_IMPORT_DOES =
  `Creates a new report with its tabs, links and findings from a file in the format ` +
  `\`GET /rest/v1/reports/{id}/export-markdown\` writes (docs/markdown-format.md), ` +
  `in the project given by \`projectId\` or the one matching the client and project ` +
  `names in the file. Evidence references to images you can see are re-linked by content; ` +
  `others are listed in \`warnings\`. One transaction: on any error nothing is created. A ` +
  `file that is not in the format answers 422 \`invalid_markdown\` naming line, column and ` +
  `what was expected. Send \`Idempotency-Key\` to make a retry safe.`;

/**
 * `POST /rest/v1/reports/import-markdown-file` (the file, multipart) and
 * `POST /rest/v1/reports/import-markdown` (the text in JSON; it still takes the multipart upload
 * older clients send there): a whole new report (tabs, links, findings, re-linked evidence) from a
 * file in the export's format, in one transaction. Two operations so that each has one request
 * body, which client generators need to type an upload.
 */
export function registerReportImport(app: AppContext, imports: MarkdownImportService): void {
  app.registry.addSchema('ImportMarkdownResult', ImportMarkdownResult);

  const importHandler = async (
    ctx: Context,
    input: { body: unknown; files: Record<string, UploadedFile>; principal: RestPrincipal; multipart: boolean },
  ) => {
    const { body, files, principal, multipart } = input;
    const request = body as { markdown?: string; projectId?: string };
    const source = multipart ? uploadedFile(files.file) : request.markdown!;
    // Why in turn: a large import holds a worker and memory; a few at a time keep the process answering.
    await imports.inTurn(async () => {
      const parsed = await imports.read(source);
      const projectId = await imports.targetProject(principal, request.projectId, parsed.document);
      await runIdempotentCreate(ctx, principal, {
        body: { projectId: request.projectId ?? null },
        fingerprintExtra: await sha256Of(source),
        work: async (trx) => {
          const what = `Importing a report of ${count(parsed.document.findings.length)} findings`;
          const created = await withinBulkLimit(trx, app.deps.config.bulkStatementTimeoutMs, what, () =>
            imports.create(trx, principal, projectId, parsed),
          );
          return { status: 201, headers: { Location: `/rest/v1/reports/${created.reportId}` }, body: created };
        },
        stillVisible: (stored) => imports.stillVisible(principal, String((stored as { reportId?: unknown }).reportId)),
      });
    });
  };

  defineRestRoute(app, {
    method: 'post',
    path: '/rest/v1/reports/import-markdown-file',
    heavy: 'An import',
    operationId: 'importReportMarkdownFile',
    usesFileStore: 'write',
    summary: 'Create a whole report from a Markdown file',
    description:
      `Multipart with one \`file\` (up to ${MARKDOWN_LIMITS.reportBytes / MB} MB) and an optional ` +
      `\`projectId\`. ${WHAT_AN_IMPORT_DOES}`,
    tags: ['Reports'],
    cost: 10,
    headers: [IDEMPOTENCY_HEADER],
    body: {
      schema: UploadBody,
      contentType: 'multipart/form-data',
      maxBytes: MARKDOWN_LIMITS.reportBytes,
      fileFields: ['file'],
    },
    responses: IMPORT_RESPONSES,
    handler: importHandler,
  });

  defineRestRoute(app, {
    method: 'post',
    path: '/rest/v1/reports/import-markdown',
    heavy: 'An import',
    operationId: 'importReportMarkdown',
    usesFileStore: 'write',
    summary: 'Create a whole report from Markdown',
    description:
      `JSON \`{"markdown": "...", "projectId": "..."}\` (up to the JSON body cap); for a file, ` +
      `\`POST /rest/v1/reports/import-markdown-file\`. ${WHAT_AN_IMPORT_DOES}`,
    tags: ['Reports'],
    cost: 10,
    headers: [IDEMPOTENCY_HEADER],
    body: {
      schema: JsonBody,
      legacyUpload: {
        schema: UploadBody,
        maxBytes: MARKDOWN_LIMITS.reportBytes,
        fileFields: ['file'],
        operationId: 'importReportMarkdownFile',
      },
      example: {
        markdown: '---\ntitle: External penetration test\n...',
        projectId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f',
      },
    },
    responses: IMPORT_RESPONSES,
    handler: importHandler,
  });
}
