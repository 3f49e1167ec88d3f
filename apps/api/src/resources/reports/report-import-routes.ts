import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Type } from 'typebox';
import { PayloadTooLargeError, UnprocessableError, ValidationError } from '@service/http';
import { importReportMarkdown, MARKDOWN_LIMITS, MarkdownFormatError } from '@service/markdown';
import { Uuid, type ReportDocument } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from '../idempotent-create.ts';
import { invalidReference } from '../invalid-reference.ts';
import type { ResourceRepository } from '../resource-repository.ts';
import type { ReportRepository } from './reports-repository.ts';

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
    file: Type.Optional(
      Type.String({
        format: 'binary',
        description: `Required. The report file (UTF-8), up to ${MARKDOWN_LIMITS.reportBytes / MB} MB.`,
      }),
    ),
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

/**
 * `POST /rest/v1/reports/import-markdown`: a whole new report (tabs, links, findings, re-linked
 * evidence) from a file in the export's format, in one transaction.
 */
export function registerReportImport(app: AppContext, reports: ReportRepository, projects: ResourceRepository): void {
  app.registry.addSchema('ImportMarkdownResult', ImportMarkdownResult);

  /** The project named by id, or the one project whose client and project names match the file's. */
  async function targetProject(
    principal: RestPrincipal,
    projectId: string | undefined,
    doc: ReportDocument,
  ): Promise<string> {
    if (projectId) {
      if (!(await projects.find(principal.tenant, principal, projectId)))
        throw invalidReference('projectId', `The project ${projectId} does not exist or is not visible to you.`);
      return projectId;
    }
    const matches = (await projects
      .scoped(principal.tenant, principal)
      .where('r.name', doc.project.name)
      .andWhere('c.name', doc.client.name)
      .clearSelect()
      .select('r.id')
      .limit(2)) as Array<{ id: string }>;
    if (matches.length === 1) return matches[0]!.id;
    throw invalidReference(
      'projectId',
      matches.length === 0
        ? `No project "${doc.project.name}" of a client "${doc.client.name}" is visible to ` +
            `you; create it or pass projectId.`
        : `Several projects "${doc.project.name}" of clients "${doc.client.name}" exist; pass projectId to choose one.`,
    );
  }

  defineRestRoute(app, {
    method: 'post',
    path: '/rest/v1/reports/import-markdown',
    operationId: 'importReportMarkdown',
    summary: 'Create a whole report from Markdown',
    description:
      `Creates a new report with its tabs, links and findings from a file in the format ` +
      `\`GET /rest/v1/reports/{id}/export-markdown\` writes (docs/markdown-format.md), ` +
      `in the project given by \`projectId\` or the one matching the client and project ` +
      `names in the file. Multipart with one \`file\` (up to ` +
      `${MARKDOWN_LIMITS.reportBytes / MB} MB), or JSON \`{"markdown": "...", ` +
      `"projectId": "..."}\` (up to the JSON body cap). Evidence references to images ` +
      `you can see are re-linked by content; others are listed in \`warnings\`. One ` +
      `transaction: on any error nothing is created. A file that is not in the format ` +
      `answers 422 \`invalid_markdown\` naming line, column and what was expected. ` +
      `Counts as 10 requests for rate limiting. Send \`Idempotency-Key\` to make a ` +
      `retry safe.`,
    tags: ['Reports'],
    headers: [IDEMPOTENCY_HEADER],
    body: {
      schema: JsonBody,
      multipart: { schema: UploadBody, maxBytes: MARKDOWN_LIMITS.reportBytes, fileFields: ['file'] },
      example: {
        markdown: '---\ntitle: External penetration test\n...',
        projectId: '4f1c1e8a-8b2b-4c1a-9f1e-1a2b3c4d5e6f',
      },
    },
    responses: {
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
    },
    async handler(ctx, { body, files, principal, multipart }) {
      let source: Uint8Array | string;
      const input = body as { markdown?: string; projectId?: string };
      if (multipart) {
        const file = files.file;
        if (!file)
          throw new ValidationError('The form needs a file field named "file".', [
            { path: '/file', message: 'is required' },
          ]);
        source = await readFile(file.filepath);
      } else {
        source = input.markdown!;
      }
      let parsed;
      try {
        parsed = importReportMarkdown(source);
      } catch (err) {
        if (err instanceof MarkdownFormatError) {
          if (err.code === 'payload_too_large') throw new PayloadTooLargeError(err.message);
          throw new UnprocessableError('invalid_markdown', err.message, [
            { ...err.toDetail(), value: `line ${err.line}, column ${err.column}: expected ${err.expected}` },
          ]);
        }
        throw err;
      }
      const { document, warnings } = parsed;
      const projectId = await targetProject(principal, input.projectId, document);
      await runIdempotentCreate(ctx, principal, {
        body: { projectId: input.projectId ?? null },
        fingerprintExtra: createHash('sha256').update(source).digest('hex'),
        work: async (trx) => {
          const created = await reports.createDocument(trx, principal, projectId, document);
          const evidence =
            document.tabs.reduce((n, t) => n + t.evidence.length, 0) +
            document.findings.reduce((n, f) => n + f.evidence.length, 0);
          return {
            status: 201,
            headers: { Location: `/rest/v1/reports/${created.reportId}` },
            body: {
              reportId: created.reportId,
              projectId,
              tabs: document.tabs.length,
              links: document.links.length,
              findings: created.findingIds.length,
              evidenceLinked: evidence - created.warnings.filter((w) => w.startsWith('Evidence ')).length,
              warnings: [...warnings, ...created.warnings],
            },
          };
        },
        stillVisible: async (stored) =>
          (await reports.find(principal.tenant, principal, String((stored as { reportId?: unknown }).reportId))) !==
          null,
      });
    },
  });
}
