import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Type } from 'typebox';
import { RANGE_HEADERS, rangeResponses, requiredFile, sendStoredFile, UnsupportedMediaTypeError } from '@service/http';
import { EVIDENCE_IMAGE_LIMITS, Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import { defineResource, type Resource } from '../define-resource.ts';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_RESPONSES, runIdempotentCreate } from '../idempotent-create.ts';
import { filesOf, type EvidenceRepository } from './evidence-repository.ts';
import { inspectEvidenceImage } from './inspect-evidence-image.ts';
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

/** The first bytes of an upload, which say its type. */
async function headOf(file: string): Promise<Uint8Array> {
  const fh = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(64), 0, 64, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
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
      "must be on the key's allow-list. Send `Idempotency-Key` to make a retry safe. The image is streamed " +
      'to the file store before its row is written, and removed again when the row is not.',
    tags: ['Evidence images'],
    headers: [IDEMPOTENCY_HEADER],
    usesFileStore: 'write',
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
      422: {
        description:
          `${IDEMPOTENCY_RESPONSES[422]!.description} Or the image cannot be kept: \`invalid_image\`` +
          ' (no pixels, a damaged header, truncated pixel data) or ' +
          `\`image_too_large\` (over ${EVIDENCE_IMAGE_LIMITS.maxPixels.toLocaleString('en-US')} pixels, over ` +
          `${EVIDENCE_IMAGE_LIMITS.maxSide.toLocaleString('en-US')} on a side, or over ` +
          `${EVIDENCE_IMAGE_LIMITS.maxDecodedBytes / 1048576} MB decoded); the message names the limit.`,
        schema: 'Error',
      },
    },
    async handler(ctx, { body, files, principal }) {
      const file = requiredFile(files, 'file');
      const type = sniffImageType(await headOf(file.filepath));
      if (!type) throw new UnsupportedMediaTypeError('The file is not a PNG, JPEG, GIF or WebP image.');
      await repository.assertCanUpload(principal, body);
      await inspectEvidenceImage(file.filepath);
      const stored = filesOf(repository.files, principal);
      // Why before the transaction: no database connection waits while the bytes travel to the store.
      const object = await stored.write('evidence', createReadStream(file.filepath), file.size);
      try {
        await runIdempotentCreate(ctx, principal, {
          body,
          fingerprintExtra: object.sha256,
          work: async (trx) => {
            const row = await repository.upload(trx, principal, {
              findingId: body.findingId,
              reportTabId: body.reportTabId,
              retestResultId: body.retestResultId,
              caption: body.caption ?? '',
              fileName: safeFileName(file.originalFilename, type.extension),
              contentType: type.contentType,
              object,
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
      } finally {
        // Why whatever the outcome: a replay, a refusal or a failure leaves the object unclaimed, and it goes now.
        await stored.settle([object.key]).catch(() => {});
      }
    },
  });

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/evidence-images/{id}/content',
    operationId: 'getEvidenceImageContent',
    summary: 'Download the bytes of an evidence image',
    description:
      'The image bytes with their content type, served with `nosniff` and a restrictive Content-Security-Policy, ' +
      'streamed from the file store. A strong `ETag` (from the SHA-256 of the bytes); one byte range per request.',
    tags: ['Evidence images'],
    params: Type.Object({ id: Uuid }),
    headers: RANGE_HEADERS,
    usesFileStore: 'read',
    responses: {
      200: {
        description: 'The image, with its content type.',
        contentType: 'image/*',
        schema: Type.String({ format: 'binary' }),
        headers: { 'Accept-Ranges': { description: '`bytes`: `Range` is honoured.', schema: { type: 'string' } } },
      },
      ...rangeResponses('image/*'),
    },
    async handler(ctx, { params, principal }) {
      const row = await repository.require(principal.tenant, principal, params.id, 'read');
      ctx.set('Content-Disposition', `inline; filename="${String(row.file_name).replace(/"/g, '')}"`);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Content-Security-Policy', "default-src 'none'");
      ctx.set('Cache-Control', 'private, max-age=300');
      await sendStoredFile(ctx, {
        sha256: row.sha256,
        size: row.size,
        contentType: row.content_type,
        open: (range) => filesOf(repository.files, principal).read(row.storage_key, range),
      });
    },
  });
  return resource;
}
