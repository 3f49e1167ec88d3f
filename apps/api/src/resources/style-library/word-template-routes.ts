import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Type, type TSchema } from 'typebox';
import { lintDocxTemplate, describeProblem, TEMPLATE_LIMITS } from '@service/docx';
import { NotFoundError, requiredFile, sendStoredFile, UnprocessableError } from '@service/http';
import type { StoredFiles } from '@service/storage';
import { Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import { filesOf } from '../evidence-images/evidence-repository.ts';
import { responseSchema } from '../field.ts';
import { nextUpdatedAt, type ResourceRepository } from '../resource-repository.ts';

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const MB = 1024 * 1024;

const UploadBody = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description: `The Word template (.docx), up to ${TEMPLATE_LIMITS.maxBytes / MB} MB.`,
    }),
  },
  { additionalProperties: false },
);

const uploadResult = (style: TSchema) =>
  Type.Object({
    style,
    missingStyles: Type.Array(Type.String(), {
      description:
        'Named paragraph styles the template lacks; Markdown that needs them falls back ' +
        "to the template's normal style. Not an error.",
    }),
  });

function safeFileName(name: string | null): string {
  const base = (name ?? '')
    .replace(/[^\w.\- ]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 200)
    .trim();
  return /\.docx$/i.test(base) ? base : `${base || 'template'}.docx`;
}

/**
 * The firm's own Word template of a report style: upload (linted by test-rendering a sample
 * report; nothing stored unless it passes), download and removal. The DOCX export fills it for
 * reports with that style.
 */
export function registerWordTemplateRoutes(app: AppContext, styles: ResourceRepository, files: StoredFiles): void {
  app.registry.addSchema(
    'WordTemplateUploadResult',
    uploadResult(responseSchema(styles.declaration.fields, styles.declaration.extraResponse)),
  );
  const path = '/rest/v1/style-library/{id}/word-template';
  const params = Type.Object({ id: Uuid });

  defineRestRoute(app, {
    method: 'put',
    path,
    operationId: 'putStyleWordTemplate',
    summary: "Upload the style's Word template",
    description:
      `Multipart with one \`file\`: a .docx your firm designed in Word with the tags of ` +
      `docs/docx-templates.md. Checked before anything is stored: size ` +
      `(${TEMPLATE_LIMITS.maxBytes / MB} MB), zip bombs, paths, DTDs and entities, ` +
      `macros and external links; then a sample report is rendered through it. Every ` +
      `problem is answered at once as 422 \`invalid_template\`, each detail naming the ` +
      `tag and the paragraph around it. Replaces an earlier template. Templates are ` +
      `logic-less: nothing in them runs on the server. Safe to retry: the same file again replaces the ` +
      'template with itself.',
    tags: ['Style library'],
    params,
    usesFileStore: 'write',
    retrySafe: true,
    body: {
      schema: UploadBody,
      contentType: 'multipart/form-data',
      maxBytes: TEMPLATE_LIMITS.maxBytes,
      fileFields: ['file'],
    },
    responses: {
      200: { description: 'Stored; the style now uses it.', schema: 'WordTemplateUploadResult' },
      422: {
        description:
          'The template failed its checks (`invalid_template`); `details` lists every ' +
          'problem with its tag and paragraph.',
        schema: 'Error',
      },
    },
    async handler(ctx, { params: p, files: uploaded, principal }) {
      const file = requiredFile(uploaded, 'file');
      await styles.require(principal.tenant, principal, p.id, 'update');
      const bytes = await readFile(file.filepath);
      const lint = lintDocxTemplate(bytes);
      if (!lint.ok) {
        throw new UnprocessableError(
          'invalid_template',
          `The Word template has ${lint.errors.length} ` +
            `problem${lint.errors.length === 1 ? '' : 's'}; nothing was stored.`,
          [
            ...lint.errors.map((e) => ({ path: '/file', message: describeProblem(e) })),
            ...lint.missingStyles.map((s) => ({
              path: '/file',
              message: `the template has no paragraph style named "${s}" (add it in Word)`,
              value: s,
            })),
          ],
        );
      }
      const stored = filesOf(files, principal);
      const object = await stored.write('templates', createReadStream(file.filepath), file.size);
      let previous: string | null = null;
      try {
        const row = await principal.tenant.transaction(async (trx) => {
          const current = await styles.require(trx, principal, p.id, 'update', { forUpdate: true });
          previous = current.template_storage_key;
          await stored.claim(trx, [object.key]);
          // The replaced template is recorded as unclaimed by the update itself (a trigger).
          await trx(styles.table)
            .where({ id: p.id })
            .update({
              template_file_name: safeFileName(file.originalFilename),
              template_storage_key: object.key,
              template_sha256: object.sha256,
              template_size: object.size,
              updated_at: nextUpdatedAt(trx),
            });
          return (await styles.find(trx, principal, p.id))!;
        });
        ctx.body = { style: styles.present(row), missingStyles: lint.missingStyles };
      } finally {
        await stored.settle([object.key, previous]).catch(() => {});
      }
    },
  });

  defineRestRoute(app, {
    method: 'get',
    path,
    operationId: 'getStyleWordTemplate',
    summary: "Download the style's Word template",
    description: 'The .docx stored for this style; 404 when the style has none.',
    tags: ['Style library'],
    params,
    usesFileStore: 'read',
    responses: {
      200: { description: 'The template.', contentType: DOCX_TYPE, schema: Type.String({ format: 'binary' }) },
    },
    async handler(ctx, { params: p, principal }) {
      const row = await styles.require(principal.tenant, principal, p.id, 'read');
      const meta = styles.present(row).wordTemplate as { fileName: string; sha256: string; size: number } | null;
      if (!meta || !row.template_storage_key) throw new NotFoundError('This style has no Word template.');
      ctx.set('Content-Disposition', `attachment; filename="${meta.fileName.replace(/"/g, '')}"`);
      await sendStoredFile(ctx, {
        sha256: meta.sha256,
        size: meta.size,
        contentType: DOCX_TYPE,
        open: () => filesOf(files, principal).read(row.template_storage_key!),
      });
    },
  });

  defineRestRoute(app, {
    method: 'delete',
    path,
    operationId: 'deleteStyleWordTemplate',
    summary: "Remove the style's Word template",
    description: 'The DOCX export goes back to our own layout for reports with this style.',
    tags: ['Style library'],
    params,
    responses: { 204: { description: 'Removed.' } },
    async handler(ctx, { params: p, principal }) {
      const key = await principal.tenant.transaction(async (trx) => {
        const row = await styles.require(trx, principal, p.id, 'update', { forUpdate: true });
        if (!row.template_storage_key) throw new NotFoundError('This style has no Word template.');
        await trx(styles.table)
          .where({ id: p.id })
          .update({
            template_file_name: null,
            template_storage_key: null,
            template_sha256: null,
            template_size: null,
            updated_at: nextUpdatedAt(trx),
          });
        return row.template_storage_key!;
      });
      await filesOf(files, principal).settle([key]);
      ctx.status = 204;
    },
  });
}
