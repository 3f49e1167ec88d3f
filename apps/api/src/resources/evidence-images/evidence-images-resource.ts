import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Type } from 'typebox';
import { NotFoundError, requiredFile, UnsupportedMediaTypeError } from '@service/http';
import { Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import { defineResource, type Resource } from '../define-resource.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from '../idempotent-create.ts';
import type { EvidenceRepository } from './evidence-repository.ts';
import { sniffImageType } from './sniff-image-type.ts';

const UploadFields = Type.Object(
  {
    findingId: Type.Optional({
      ...Uuid,
      description: 'The finding the image belongs to. Exactly one of `findingId`, `reportTabId` and `retestResultId`.',
    }),
    reportTabId: Type.Optional({
      ...Uuid,
      description:
        'The report tab the image belongs to. Exactly one of `findingId`, `reportTabId` and `retestResultId`.',
    }),
    retestResultId: Type.Optional({
      ...Uuid,
      description:
        "A finding's result in a retest: the image is retest evidence. Exactly one of `findingId`, `reportTabId` " +
        'and `retestResultId`.',
    }),
    caption: Type.Optional(Type.String({ maxLength: 2000 })),
    file: Type.String({
      format: 'binary',
      description: 'The image: PNG, JPEG, GIF or WebP, checked by content.',
    }),
  },
  {
    additionalProperties: false,
    oneOf: [{ required: ['findingId'] }, { required: ['reportTabId'] }, { required: ['retestResultId'] }],
  } as never,
);

function safeFileName(name: string | null, extension: string): string {
  const base = (name ?? '')
    .replace(/[^\w.\- ]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 200)
    .trim();
  return base || `evidence.${extension}`;
}

export function registerEvidenceImages(app: AppContext, repository: EvidenceRepository): Resource {
  const resource = defineResource(app, repository);

  defineRestRoute(app, {
    method: 'post',
    path: '/rest/v1/evidence-images',
    operationId: 'createEvidenceImage',
    summary: 'Upload an evidence image',
    description:
      'Multipart with one `file` and exactly one of `findingId`, `reportTabId` or `retestResultId` (retest ' +
      'evidence of a finding in a retest). ' +
      'Adding an image edits the finding or report it goes to, so the owning client ' +
      "must be on the key's allow-list. Send `Idempotency-Key` to make a retry safe.",
    tags: ['Evidence images'],
    headers: [IDEMPOTENCY_HEADER],
    body: {
      schema: UploadFields,
      contentType: 'multipart/form-data',
      maxBytes: app.deps.config.evidenceMaxBytes,
      fileFields: ['file'],
    },
    responses: {
      201: {
        description: 'Stored.',
        schema: 'EvidenceImage',
        headers: { Location: { description: 'The new image.' } },
      },
      415: {
        description: 'The file is not a PNG, JPEG, GIF or WebP image (`unsupported_media_type`).',
        schema: 'Error',
      },
      ...IDEMPOTENCY_RESPONSES,
    },
    async handler(ctx, { body, files, principal }) {
      const file = requiredFile(files, 'file');
      const bytes = await readFile(file.filepath);
      const type = sniffImageType(bytes);
      if (!type) throw new UnsupportedMediaTypeError('The file is not a PNG, JPEG, GIF or WebP image.');
      await runIdempotentCreate(ctx, principal, {
        body,
        fingerprintExtra: createHash('sha256').update(bytes).digest('hex'),
        work: async (trx) => {
          const row = await repository.upload(trx, principal, {
            findingId: body.findingId,
            reportTabId: body.reportTabId,
            retestResultId: body.retestResultId,
            caption: body.caption ?? '',
            fileName: safeFileName(file.originalFilename, type.extension),
            contentType: type.contentType,
            bytes,
          });
          return {
            status: 201,
            headers: { Location: `/rest/v1/evidence-images/${row.id}` },
            body: repository.present(row),
          };
        },
        stillVisible: async (stored) =>
          (await repository.find(principal.tenant, principal, String((stored as { id?: unknown }).id))) !== null,
      });
    },
  });

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/evidence-images/{id}/content',
    operationId: 'getEvidenceImageContent',
    summary: 'Download the bytes of an evidence image',
    description:
      'The image bytes with their content type, served with `nosniff` and a restrictive Content-Security-Policy.',
    tags: ['Evidence images'],
    params: Type.Object({ id: Uuid }),
    responses: {
      200: {
        description: 'The image, with its content type.',
        contentType: 'image/*',
        schema: Type.String({ format: 'binary' }),
      },
    },
    async handler(ctx, { params, principal }) {
      const row = await repository.require(principal.tenant, principal, params.id, 'read');
      const bytes = await repository.files.read(row.storage_key).catch(() => null);
      if (!bytes) throw new NotFoundError('The image file is missing from storage.');
      ctx.type = row.content_type;
      ctx.set('Content-Disposition', `inline; filename="${String(row.file_name).replace(/"/g, '')}"`);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Content-Security-Policy', "default-src 'none'");
      ctx.set('Cache-Control', 'private, max-age=300');
      ctx.body = bytes;
    },
  });
  return resource;
}
