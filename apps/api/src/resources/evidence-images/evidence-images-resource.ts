import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Type } from 'typebox';
import { defineRoute, NotFoundError, UnsupportedMediaTypeError, ValidationError } from '@service/http';
import type { AppContext } from '../../app-context.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { assertAllowed } from '../access.ts';
import { defineResource } from '../define-resource.ts';
import { baseFields, Uuid } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { evidenceVisibility } from '../visibility.ts';
import { evidenceFiles } from './evidence-files.ts';
import { sniffImageType } from './sniff-image-type.ts';

const UploadFields = Type.Object(
  {
    findingId: Type.Optional(Uuid),
    reportTabId: Type.Optional(Uuid),
    caption: Type.Optional(Type.String({ maxLength: 2000 })),
    file: Type.Optional(Type.String({ format: 'binary', description: 'The image: PNG, JPEG, GIF or WebP, checked by content.' })),
  },
  { additionalProperties: false },
);

function safeFileName(name: string | null, extension: string): string {
  const base = (name ?? '').replace(/[^\w.\- ]+/g, '_').replace(/^\.+/, '').slice(0, 200).trim();
  return base || `evidence.${extension}`;
}

export function registerEvidenceImages(app: AppContext) {
  const files = evidenceFiles(app);
  const maxBytes = app.deps.config.evidenceMaxBytes;
  const resource = defineResource(app, {
    name: 'evidence-images',
    schemaName: 'EvidenceImage',
    label: 'evidence image',
    tag: 'Evidence images',
    description: `Screenshots and other images attached to a finding or a report tab. PNG, JPEG, GIF and WebP up to ${Math.round(maxBytes / 1048576)} MB, checked by content. Uploads need the client on the key's allow-list. Deleted permanently, bytes included.`,
    table: 'evidence_images',
    visibility: evidenceVisibility,
    operations: { create: false },
    internalColumns: ['storage_key'],
    fields: {
      ...baseFields,
      findingId: { column: 'finding_id', schema: Type.Union([Uuid, Type.Null()]) },
      reportTabId: { column: 'report_tab_id', schema: Type.Union([Uuid, Type.Null()]) },
      fileName: { column: 'file_name', schema: Type.String() },
      contentType: { column: 'content_type', schema: Type.Enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']) },
      size: { column: 'size', schema: Type.Integer() },
      sha256: { column: 'sha256', schema: Type.String() },
      caption: { column: 'caption', schema: Type.String({ maxLength: 2000 }), update: true },
    },
    filters: {
      finding_id: { schema: Uuid, description: 'Only images of this finding.', apply: (q, v: string) => void q.where('r.finding_id', v) },
      report_tab_id: { schema: Uuid, description: 'Only images of this report tab.', apply: (q, v: string) => void q.where('r.report_tab_id', v) },
    },
    async beforeDelete(_trx, row) {
      return () => files.remove(row.storage_key as string);
    },
  });

  defineRoute(app.router, app.registry, app.routeDefaults, {
    method: 'post',
    path: '/rest/v1/evidence-images',
    operationId: 'create_evidence-images',
    summary: 'Upload an evidence image',
    description: 'Multipart with one `file` and exactly one of `findingId` or `reportTabId`. Needs the owning client on the key\'s allow-list.',
    tags: ['Evidence images'],
    security: 'apiKey',
    body: { schema: UploadFields, contentType: 'multipart/form-data', maxBytes, fileFields: ['file'] },
    responses: {
      201: { description: 'Stored.', schema: 'EvidenceImage', headers: { Location: { description: 'The new image.' } } },
      415: { description: 'The file is not a PNG, JPEG, GIF or WebP image (`unsupported_media_type`).', schema: 'Error' },
    },
    async handler(ctx, { body, files: uploaded }) {
      const principal = ctx.state.principal as RestPrincipal;
      const db = principal.tenant;
      if (!body.findingId === !body.reportTabId) {
        throw new ValidationError('Give exactly one of findingId or reportTabId.', [{ path: '/findingId', message: 'exactly one of findingId or reportTabId is required' }]);
      }
      const file = uploaded.file;
      if (!file) throw new ValidationError('The form needs a file field named "file".', [{ path: '/file', message: 'is required' }]);
      const owner = body.findingId
        ? await resolveParentRow(db, principal, 'finding', body.findingId, 'findingId')
        : await resolveParentRow(db, principal, 'report tab', body.reportTabId, 'reportTabId');
      assertAllowed(principal, 'upload', owner.access, body.findingId ? 'finding' : 'report tab');
      const bytes = await readFile(file.filepath);
      const type = sniffImageType(bytes);
      if (!type) throw new UnsupportedMediaTypeError('The file is not a PNG, JPEG, GIF or WebP image.');
      const key = await files.put(bytes);
      try {
        const [row] = await db('evidence_images')
          .insert({
            finding_id: body.findingId ?? null,
            report_tab_id: body.reportTabId ?? null,
            file_name: safeFileName(file.originalFilename, type.extension),
            content_type: type.contentType,
            size: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            storage_key: key,
            caption: body.caption ?? '',
            created_by: principal.userId,
          })
          .returning('id');
        ctx.status = 201;
        ctx.set('Location', `/rest/v1/evidence-images/${row.id}`);
        ctx.body = resource.present((await resource.store.find(db, principal, row.id))!);
      } catch (err) {
        await files.remove(key);
        throw err;
      }
    },
  });

  defineRoute(app.router, app.registry, app.routeDefaults, {
    method: 'get',
    path: '/rest/v1/evidence-images/{id}/content',
    operationId: 'get_evidence-image_content',
    summary: 'Download the bytes of an evidence image',
    tags: ['Evidence images'],
    security: 'apiKey',
    params: Type.Object({ id: Uuid }),
    responses: { 200: { description: 'The image, with its content type.', contentType: 'image/*', schema: Type.String({ format: 'binary' }) } },
    async handler(ctx, { params }) {
      const principal = ctx.state.principal as RestPrincipal;
      const row = await resource.store.require(principal.tenant, principal, params.id, 'read');
      const bytes = await files.read(row.storage_key as string).catch(() => null);
      if (!bytes) throw new NotFoundError('The image file is missing from storage.');
      ctx.type = row.content_type as string;
      ctx.set('Content-Disposition', `inline; filename="${String(row.file_name).replace(/"/g, '')}"`);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Content-Security-Policy', "default-src 'none'");
      ctx.set('Cache-Control', 'private, max-age=300');
      ctx.body = bytes;
    },
  });
  return resource;
}
