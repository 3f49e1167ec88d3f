import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { ByteRange, ObjectRead, ObjectStore } from './object-store.ts';
import { newObjectKey, type ObjectKind } from './object-keys.ts';
import { StoreUnavailableError } from './store-errors.ts';

/** A column whose rows name objects (`evidence_images.storage_key`): an object one of them names is never removed. */
export interface ObjectReference {
  table: string;
  column: string;
  /** The columns that record the object's SHA-256 (hex) and size, for copies verified by checksum. */
  sha256Column: string;
  sizeColumn: string;
}

/** The table of objects no committed row may name yet (being written) or any more (being removed). */
const UNCLAIMED = 'unclaimed_objects';

/** How long the regular sweep leaves an unclaimed object alone: far longer than any upload may take. */
export const SWEEP_GRACE_MS = 60 * 60_000;
/** Objects one sweep transaction settles at most. */
export const SWEEP_BATCH = 100;

/** A write that was stored: the key a row is to name, with the size and SHA-256 of the bytes as written. */
export interface WrittenObject {
  key: string;
  size: number;
  sha256: string;
}

/**
 * The files of the service: one object store, and the columns that name its objects. Its
 * `of(organization, tenant database)` gives the handle requests use.
 *
 * How nothing dangles and nothing is orphaned (every path follows it):
 * 1. `write` records the new key as unclaimed (committed on its own), then writes the object.
 * 2. The transaction that commits the row naming it `claim`s the key (the record is deleted, the
 *    row inserted, together); a transaction that stops naming an object `release`s it (recorded
 *    again, together with the change).
 * 3. After the transaction, committed or not, `settle` removes the objects of those keys that are
 *    still unclaimed and that no row names. A crash before that leaves the record, and the sweep
 *    (`sweep`, on a schedule and by `npm run admin -- sweep-files`) settles it later.
 * The sweep locks records with `SKIP LOCKED` and a claim waits for the sweep's lock, so a key is
 * either claimed (its object kept) or settled (its object removed, and the late claim fails): safe
 * on several processes at once, and idempotent.
 */
export class StoredFiles {
  constructor(
    readonly store: ObjectStore,
    readonly references: readonly ObjectReference[],
  ) {}

  /** Every object the rows of `tenant` name, with the SHA-256 and size they record, in key order. */
  async expectedObjects(tenant: Knex): Promise<Array<{ key: string; size: number; sha256: string }>> {
    const all: Array<{ key: string; size: number; sha256: string }> = [];
    for (const ref of this.references) {
      const rows = (await tenant(ref.table)
        .whereNotNull(ref.column)
        .select({ key: ref.column, size: ref.sizeColumn, sha256: ref.sha256Column })) as Array<{
        key: string;
        size: number | string;
        sha256: string;
      }>;
      for (const r of rows) all.push({ key: r.key, size: Number(r.size), sha256: r.sha256 });
    }
    return all.sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  /** The files of one organization, whose rows live in `tenant`. */
  of(organizationId: string, tenant: Knex): OrganizationFiles {
    return new OrganizationFiles(this, organizationId, tenant);
  }

  /** Settles unclaimed objects recorded at least `olderThanMs` ago, in batches; returns how many were removed and kept. */
  async sweep(
    tenant: Knex,
    options: { olderThanMs?: number; maxBatches?: number } = {},
  ): Promise<{ removed: number; kept: number }> {
    const total = { removed: 0, kept: 0 };
    const olderThanMs = options.olderThanMs ?? SWEEP_GRACE_MS;
    for (let batch = 0; batch < (options.maxBatches ?? 10); batch++) {
      const done = await this.settleBatch(tenant, (q) =>
        q.where('created_at', '<=', tenant.raw(`now() - make_interval(secs => ?)`, [olderThanMs / 1000])),
      );
      total.removed += done.removed;
      total.kept += done.kept;
      if (done.removed + done.kept < SWEEP_BATCH) break;
    }
    return total;
  }

  /** Settles the given keys now (those still unclaimed and named by no row lose their object). */
  async settle(tenant: Knex, keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += SWEEP_BATCH) {
      const slice = keys.slice(i, i + SWEEP_BATCH);
      await this.settleBatch(tenant, (q) => q.whereIn('key', slice));
    }
  }

  private async settleBatch(
    tenant: Knex,
    which: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  ): Promise<{ removed: number; kept: number }> {
    return tenant.transaction(async (trx) => {
      const keys = (await which(trx(UNCLAIMED).select('key'))
        .orderBy('created_at')
        .limit(SWEEP_BATCH)
        .forUpdate()
        .skipLocked()
        .pluck('key')) as string[];
      if (keys.length === 0) return { removed: 0, kept: 0 };
      const named = new Set<string>();
      for (const ref of this.references)
        for (const key of (await trx(ref.table).whereIn(ref.column, keys).pluck(ref.column)) as string[])
          named.add(key);
      // Why remove before the record goes: if this fails, the record stays and a later sweep tries again.
      for (const key of keys) if (!named.has(key)) await this.store.remove(key);
      await trx(UNCLAIMED).whereIn('key', keys).delete();
      return { removed: keys.length - named.size, kept: named.size };
    });
  }
}

/** One organization's files: keys under its prefix, records in its tenant database. */
export class OrganizationFiles {
  constructor(
    private readonly files: StoredFiles,
    readonly organizationId: string,
    private readonly tenant: Knex,
  ) {}

  get store(): ObjectStore {
    return this.files.store;
  }

  /** Step 1: records a new key as unclaimed, then writes `body` (`size` bytes) under it. */
  async write(kind: ObjectKind, body: Readable | Uint8Array, size: number): Promise<WrittenObject> {
    const key = newObjectKey(this.organizationId, kind);
    await this.tenant(UNCLAIMED).insert({ key });
    try {
      return { key, ...(await this.files.store.put(key, body, size)) };
    } catch (err) {
      // Why settle at once: nothing names the key; a failed write may still have left something behind.
      await this.settle([key]).catch(() => {});
      throw err;
    }
  }

  /** Step 2, in the transaction that commits the rows naming `keys`. Fails when the sweep has taken one of them. */
  async claim(trx: Knex.Transaction, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const claimed = await trx(UNCLAIMED).whereIn('key', keys).delete();
    if (claimed !== new Set(keys).size)
      throw new StoreUnavailableError('an upload took longer than the sweep waits for; send it again');
  }

  /** Step 2, in the transaction that stops naming `keys` (a delete, a replacement). */
  async release(trx: Knex.Transaction, keys: readonly (string | null | undefined)[]): Promise<void> {
    const rows = [...new Set(keys.filter((k): k is string => typeof k === 'string'))].map((key) => ({ key }));
    if (rows.length > 0) await trx(UNCLAIMED).insert(rows).onConflict('key').ignore();
  }

  /**
   * Step 3, after the transaction whatever its outcome: removes what is unclaimed and named by no
   * row. Never throws: what cannot be removed now (the store or the database is unavailable) stays
   * recorded, and the sweep removes it later; the request that got this far has succeeded.
   */
  async settle(keys: readonly (string | null | undefined)[]): Promise<void> {
    await this.files
      .settle(
        this.tenant,
        keys.filter((k): k is string => typeof k === 'string'),
      )
      .catch(() => {});
  }

  /** Opens an object (or a range of it) for reading. */
  read(key: string, range?: ByteRange): Promise<ObjectRead> {
    return this.files.store.get(key, range);
  }

  /** The whole object in memory, for what must hold it (a document renderer). */
  async readBytes(key: string): Promise<Buffer> {
    const { body } = await this.files.store.get(key);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}
