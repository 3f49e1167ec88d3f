import type { Knex } from 'knex';
import { Type } from 'typebox';
import { EVIDENCE_CONTENT_TYPES, Uuid, type EvidenceRef } from '@service/report-model';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { assertAllowed } from '../access.ts';
import { baseFields } from '../field.ts';
import { resolveParentRow } from '../parents.ts';
import { declareResource, type Row } from '../resource-declaration.ts';
import { ResourceRepository } from '../resource-repository.ts';
import { evidenceVisibility } from '../visibility.ts';
import { ObjectNotFoundError, type OrganizationFiles, type StoredFiles, type WrittenObject } from '@service/storage';

/** The files of the caller's organization. */
export function filesOf(files: StoredFiles, principal: RestPrincipal): OrganizationFiles {
  return files.of(principal.organizationId, principal.tenant);
}

/**
 * Before a finding or tab is deleted, or a finding detached from a retest (its images go with it
 * through the foreign keys, a finding's retest evidence too): collects the image files, and
 * returns the step that removes them once the delete has committed. (The delete records them as
 * unclaimed by itself; this only removes them at once instead of at the next sweep.)
 */
export async function evidenceCleanup(
  files: StoredFiles,
  trx: Knex.Transaction,
  principal: RestPrincipal,
  owner: { findingId?: string; reportTabId?: string; retestResultOf?: { reportId: string; findingId: string } },
): Promise<() => Promise<void>> {
  const q = trx('evidence_images').select('storage_key');
  const results = trx('retest_results').select('id');
  if (owner.findingId)
    q.where({ finding_id: owner.findingId }).orWhereIn(
      'retest_result_id',
      results.where({ finding_id: owner.findingId }),
    );
  else if (owner.retestResultOf)
    q.whereIn(
      'retest_result_id',
      results.where({ report_id: owner.retestResultOf.reportId, finding_id: owner.retestResultOf.findingId }),
    );
  else q.where({ report_tab_id: owner.reportTabId });
  const keys = (await q).map((r: { storage_key: string }) => r.storage_key);
  return () => filesOf(files, principal).settle(keys);
}

export interface EvidenceUpload {
  findingId?: string;
  reportTabId?: string;
  retestResultId?: string;
  caption: string;
  fileName: string;
  contentType: (typeof EVIDENCE_CONTENT_TYPES)[number];
  /** The image, already written to the store (see `OrganizationFiles.write`); claimed by the upload. */
  object: WrittenObject;
}

/** What an evidence row reads besides its fields: where its bytes are stored. */
interface EvidenceColumns {
  storage_key: string;
}

function evidenceDeclaration(files: StoredFiles, maxBytes: number) {
  return declareResource<EvidenceColumns>()({
    name: 'evidence-images',
    schemaName: 'EvidenceImage',
    label: 'evidence image',
    tag: 'Evidence images',
    description:
      `Screenshots and other images attached to a finding, a report tab or a retest result. PNG, JPEG, ` +
      `GIF and WebP up to ${Math.round(maxBytes / 1048576)} MB, checked by content. ` +
      `Uploads add to a finding or report, so they need the owning client on the key's ` +
      `allow-list. Deleted permanently, bytes included.`,
    table: 'evidence_images',
    visibility: evidenceVisibility,
    operations: { create: false },
    internalColumns: ['storage_key'],
    fields: {
      ...baseFields,
      findingId: { column: 'finding_id', schema: Type.Union([Uuid, Type.Null()]) },
      reportTabId: { column: 'report_tab_id', schema: Type.Union([Uuid, Type.Null()]) },
      retestResultId: {
        column: 'retest_result_id',
        schema: Type.Union([Uuid, Type.Null()], { description: 'The retest result this retest evidence belongs to.' }),
      },
      fileName: { column: 'file_name', schema: Type.String() },
      contentType: { column: 'content_type', schema: Type.Enum([...EVIDENCE_CONTENT_TYPES]) },
      size: { column: 'size', schema: Type.Integer() },
      sha256: { column: 'sha256', schema: Type.String({ pattern: '^[0-9a-f]{64}$' }) },
      caption: { column: 'caption', schema: Type.String({ maxLength: 2000 }), update: true },
      position: {
        column: 'position',
        schema: Type.Integer({
          minimum: 0,
          maximum: 100_000,
          description: 'Order among the images of its finding or tab (lower first); documents show them so.',
        }),
        update: true,
      },
    },
    filters: {
      finding_id: {
        schema: Uuid,
        description: 'Only images of this finding.',
        apply: (q, v: string) => void q.where('r.finding_id', v),
      },
      report_tab_id: {
        schema: Uuid,
        description: 'Only images of this report tab.',
        apply: (q, v: string) => void q.where('r.report_tab_id', v),
      },
      retest_result_id: {
        schema: Uuid,
        description: 'Only the retest evidence of this retest result.',
        apply: (q, v: string) => void q.where('r.retest_result_id', v),
      },
    },
    beforeDelete: async (_trx, row, principal) => () => filesOf(files, principal).settle([row.storage_key]),
  });
}

type EvidenceRow = Row<ReturnType<typeof evidenceDeclaration>['fields'], EvidenceColumns>;

/** Evidence images: metadata in the tenant database, bytes in the file store. */
export class EvidenceRepository extends ResourceRepository<
  ReturnType<typeof evidenceDeclaration>['fields'],
  EvidenceColumns
> {
  constructor(
    readonly files: StoredFiles,
    maxBytes: number,
  ) {
    super(evidenceDeclaration(files, maxBytes));
  }

  /**
   * Checks that the caller may add an image to the owner, before any bytes are stored (the upload
   * checks again with the owner locked).
   */
  async assertCanUpload(
    principal: RestPrincipal,
    upload: Pick<EvidenceUpload, 'findingId' | 'reportTabId' | 'retestResultId'>,
  ) {
    const [kind, id, field] = ownerOf(upload);
    const owner = await resolveParentRow(principal.tenant, principal, kind, id, field);
    assertAllowed(principal, 'upload', owner.access, kind);
  }

  /**
   * Records an upload whose bytes are in the store (`upload.object`), claiming them. The owner
   * (finding or tab) is locked for the transaction, so a concurrent delete of it waits instead of
   * leaving an image without owner. The caller settles the object afterwards, so it goes when the
   * row did not commit.
   */
  async upload(db: Knex, principal: RestPrincipal, upload: EvidenceUpload) {
    return db.transaction(async (trx) => {
      const [kind, id, field, column] = ownerOf(upload);
      const owner = await resolveParentRow(trx, principal, kind, id, field, { forUpdate: true });
      assertAllowed(principal, 'upload', owner.access, kind);
      await filesOf(this.files, principal).claim(trx, [upload.object.key]);
      const [row] = await trx('evidence_images')
        .insert({
          finding_id: upload.findingId ?? null,
          report_tab_id: upload.reportTabId ?? null,
          retest_result_id: upload.retestResultId ?? null,
          file_name: upload.fileName,
          content_type: upload.contentType,
          size: upload.object.size,
          sha256: upload.object.sha256,
          storage_key: upload.object.key,
          caption: upload.caption,
          // Why a subquery: the owner is locked, so the next position is taken once.
          position: trx.raw(`(select coalesce(max(position) + 1, 0) from evidence_images where ${column} = ?)`, [id!]),
          created_by: principal.userId,
        })
        .returning('id');
      return (await this.find(trx, principal, row.id))!;
    });
  }

  /** The evidence of the given findings and tabs as documents refer to it, in each owner's order. */
  async refsOf(
    db: Knex,
    owners: { findingIds: readonly string[]; tabIds: readonly string[]; retestResultIds?: readonly string[] },
  ): Promise<{
    byFinding: Map<string, EvidenceRef[]>;
    byTab: Map<string, EvidenceRef[]>;
    byRetestResult: Map<string, EvidenceRef[]>;
  }> {
    const byFinding = new Map<string, EvidenceRef[]>();
    const byTab = new Map<string, EvidenceRef[]>();
    const byRetestResult = new Map<string, EvidenceRef[]>();
    const resultIds = owners.retestResultIds ?? [];
    if (owners.findingIds.length === 0 && owners.tabIds.length === 0 && resultIds.length === 0)
      return { byFinding, byTab, byRetestResult };
    const rows = (await db('evidence_images')
      .where((w) =>
        w
          .whereIn('finding_id', owners.findingIds as string[])
          .orWhereIn('report_tab_id', owners.tabIds as string[])
          .orWhereIn('retest_result_id', resultIds as string[]),
      )
      .orderBy([{ column: 'position' }, { column: 'created_at' }, { column: 'id' }])
      .select(
        'id',
        'finding_id',
        'report_tab_id',
        'retest_result_id',
        'sha256',
        'file_name',
        'caption',
        'content_type',
      )) as Array<{
      id: string;
      finding_id: string | null;
      report_tab_id: string | null;
      retest_result_id: string | null;
      sha256: string;
      file_name: string;
      caption: string;
      content_type: EvidenceRef['contentType'];
    }>;
    for (const r of rows) {
      const ref: EvidenceRef = {
        id: r.id,
        sha256: r.sha256,
        fileName: r.file_name,
        caption: r.caption,
        contentType: r.content_type,
      };
      const [map, owner] = r.finding_id
        ? [byFinding, r.finding_id]
        : r.retest_result_id
          ? [byRetestResult, r.retest_result_id]
          : [byTab, r.report_tab_id!];
      const list = map.get(owner);
      if (list) list.push(ref);
      else map.set(owner, [ref]);
    }
    return { byFinding, byTab, byRetestResult };
  }

  /**
   * Links copies of images the caller can see to new owners, by the SHA-256 of their bytes (how
   * documents refer to evidence). Returns the hashes it could link. The bytes are copied under new
   * storage keys, and removed again if the transaction does not commit.
   */
  async copyVisible(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    wanted: ReadonlyArray<{ ref: EvidenceRef; findingId?: string; reportTabId?: string; retestResultId?: string }>,
  ): Promise<Set<string>> {
    const hashes = [...new Set(wanted.map((w) => w.ref.sha256))];
    const sources = new Map<string, EvidenceRow>();
    const found: EvidenceRow[] = await this.scoped(trx, principal).whereIn('r.sha256', hashes).orderBy('r.created_at');
    for (const row of found) if (!sources.has(row.sha256)) sources.set(row.sha256, row);
    // Why: copies go after the images their owners have, in the order the document lists them.
    const next = new Map<string, number>();
    const positionFor = async (w: { findingId?: string; reportTabId?: string; retestResultId?: string }) => {
      const owner = w.findingId ?? w.retestResultId ?? w.reportTabId!;
      let position = next.get(owner);
      if (position === undefined) {
        const [{ n }] = await trx('evidence_images')
          .where(
            w.findingId
              ? { finding_id: owner }
              : w.retestResultId
                ? { retest_result_id: owner }
                : { report_tab_id: owner },
          )
          .select(trx.raw('coalesce(max(position) + 1, 0) as n'));
        position = Number(n);
      }
      next.set(owner, position + 1);
      return position;
    };
    const files = filesOf(this.files, principal);
    const written: string[] = [];
    // Why settle whatever the outcome: a copy whose row did not commit is removed at once.
    const settle = () => void files.settle(written).catch(() => {});
    trx.executionPromise?.then(settle, settle);
    const rows: Record<string, unknown>[] = [];
    for (const w of wanted) {
      const source = sources.get(w.ref.sha256);
      if (!source) continue;
      const copy = await copyObject(files, source.storage_key);
      if (!copy) continue;
      written.push(copy.key);
      rows.push({
        finding_id: w.findingId ?? null,
        report_tab_id: w.reportTabId ?? null,
        retest_result_id: w.retestResultId ?? null,
        file_name: w.ref.fileName,
        content_type: source.content_type,
        size: copy.size,
        sha256: w.ref.sha256,
        storage_key: copy.key,
        caption: w.ref.caption,
        position: await positionFor(w),
        created_by: principal.userId,
      });
    }
    await files.claim(trx, written);
    for (let i = 0; i < rows.length; i += 500) await trx('evidence_images').insert(rows.slice(i, i + 500));
    return new Set(rows.map((r) => String(r.sha256)));
  }

  /**
   * Reads image bytes for a document renderer, only of images the caller can see: by reference
   * (a document's evidence, by id or content hash) or by id (a style's logo). Unknown: null.
   */
  async bytesLoader(
    db: Knex,
    principal: RestPrincipal,
  ): Promise<{ byRef(ref: EvidenceRef): Promise<Uint8Array | null>; byId(id: string): Promise<Uint8Array | null> }> {
    const keyOf = async (where: { id?: string; sha256?: string }): Promise<string | null> => {
      const q = this.scoped(db, principal).clearSelect().select('r.storage_key').orderBy('r.created_at').first();
      if (where.id) q.where('r.id', where.id);
      else q.where('r.sha256', where.sha256!);
      return ((await q) as { storage_key?: string } | undefined)?.storage_key ?? null;
    };
    const files = filesOf(this.files, principal);
    // Why only a missing object is null: a store that cannot be reached fails the export (503), it
    // does not print a document without its images.
    const read = async (key: string | null) =>
      key
        ? await files.readBytes(key).catch((err: unknown) => {
            if (err instanceof ObjectNotFoundError) return null;
            throw err;
          })
        : null;
    return {
      byRef: async (ref) => read(await keyOf(ref.id ? { id: ref.id } : { sha256: ref.sha256 })),
      byId: async (id) => read(await keyOf({ id })),
    };
  }
}

function ownerOf(upload: Pick<EvidenceUpload, 'findingId' | 'reportTabId' | 'retestResultId'>) {
  return upload.findingId
    ? (['finding', upload.findingId, 'findingId', 'finding_id'] as const)
    : upload.retestResultId
      ? (['retest result', upload.retestResultId, 'retestResultId', 'retest_result_id'] as const)
      : (['report tab', upload.reportTabId, 'reportTabId', 'report_tab_id'] as const);
}

/** A copy of a stored object under a new key (recorded as unclaimed), streamed; null when the source is missing. */
async function copyObject(files: OrganizationFiles, key: string): Promise<{ key: string; size: number } | null> {
  const source = await files.read(key).catch((err: unknown) => {
    if (err instanceof ObjectNotFoundError) return null;
    throw err;
  });
  if (!source) return null;
  const written = await files.write('evidence', source.body, source.size);
  return { key: written.key, size: written.size };
}
