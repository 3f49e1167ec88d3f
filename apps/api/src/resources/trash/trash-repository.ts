import type { Knex } from 'knex';
import { ConflictError, ForbiddenError, NotFoundError } from '@service/http';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { assertAllowed, WORKSPACE_WIDE } from '../access.ts';
import type { Row } from '../resource-declaration.ts';
import type { ResourceRepository } from '../resource-repository.ts';
import { selectPage } from '../select-page.ts';

export type TrashType = 'client' | 'project' | 'report';

export interface TrashItem {
  type: TrashType;
  id: string;
  name: string;
  clientId: string;
  projectId: string | null;
  deletedAt: string;
  deletedBy: string | null;
}

/** A row of the trash listing: the union of trashed clients, projects and reports. */
interface TrashRow {
  type: TrashType;
  id: string;
  name: string;
  client_id: string;
  project_id: string | null;
  deleted_at: Date;
  deleted_by: string | null;
}

/** What must be alive before a trashed row can come back: its ancestors, nearest first. */
const ANCESTORS: Record<TrashType, Array<{ table: string; label: string; sql: string }>> = {
  client: [],
  project: [{ table: 'clients', label: 'client', sql: 'select c.id, c.deleted_at from clients c where c.id = ?' }],
  report: [
    { table: 'projects', label: 'project', sql: 'select p.id, p.deleted_at from projects p where p.id = ?' },
    {
      table: 'clients',
      label: 'client',
      sql: 'select c.id, c.deleted_at from clients c join projects p on p.client_id = c.id where p.id = ?',
    },
  ],
};

/**
 * The workspace trash. Listing it is a read for administrators (a read-only key of an
 * administrator may list it); restoring is an administrator's change.
 */
export class TrashRepository {
  constructor(private readonly repositories: Record<TrashType, ResourceRepository>) {}

  private assertAdmin(principal: RestPrincipal, action: 'read' | 'restore'): void {
    assertAllowed(principal, action, WORKSPACE_WIDE, 'trash');
    if (principal.role !== 'admin')
      throw new ForbiddenError('forbidden', 'Only administrators see and restore the trash.');
  }

  async list(
    db: Knex,
    principal: RestPrincipal,
    page: { offset: number; limit: number; type?: TrashType },
  ): Promise<{ items: TrashItem[]; total: number }> {
    this.assertAdmin(principal, 'read');
    const union = db
      .select(
        db.raw("'client' as type"),
        'id',
        'name',
        db.raw('id as client_id'),
        db.raw('null::uuid as project_id'),
        'deleted_at',
        'deleted_by',
      )
      .from('clients')
      .whereNotNull('deleted_at')
      .unionAll((u) =>
        u
          .select(db.raw("'project'"), 'id', 'name', 'client_id', db.raw('null::uuid'), 'deleted_at', 'deleted_by')
          .from('projects')
          .whereNotNull('deleted_at'),
      )
      .unionAll((u) =>
        u
          .select(db.raw("'report'"), 'r.id', 'r.title', 'p.client_id', 'r.project_id', 'r.deleted_at', 'r.deleted_by')
          .from('reports as r')
          .join('projects as p', 'p.id', 'r.project_id')
          .whereNotNull('r.deleted_at'),
      );
    const q = db.from(union.as('t'));
    if (page.type) q.where('type', page.type);
    const { rows, total } = await selectPage<TrashRow>(db, q, ['*'], {
      offset: page.offset,
      limit: page.limit,
      order: [
        ['deleted_at', 'desc'],
        ['id', 'asc'],
      ],
    });
    return {
      total,
      items: rows.map((r) => ({
        type: r.type,
        id: r.id,
        name: r.name,
        clientId: r.client_id,
        projectId: r.project_id,
        deletedAt: r.deleted_at.toISOString(),
        deletedBy: r.deleted_by,
      })),
    };
  }

  /**
   * Brings a trashed row back exactly as it was. One transaction: the row is locked, its
   * ancestors are locked against a concurrent trash and must be alive, then it is restored.
   */
  async restore(db: Knex, principal: RestPrincipal, type: TrashType, id: string): Promise<Row> {
    this.assertAdmin(principal, 'restore');
    const repository = this.repositories[type];
    return db.transaction(async (trx) => {
      // Why no visibility query: only administrators get here, and they see the whole workspace;
      // the row's ancestors may be in the trash themselves, which is answered with 409 below.
      const trashed: { client_id?: string; project_id?: string } | undefined = /^[0-9a-f-]{36}$/i.test(id)
        ? await trx(repository.table).where({ id }).whereNotNull('deleted_at').forUpdate().first()
        : undefined;
      if (!trashed) throw new NotFoundError(`No ${type} ${id} is in the trash.`);
      const parentId = (type === 'project' ? trashed.client_id : type === 'report' ? trashed.project_id : null) ?? null;
      for (const ancestor of ANCESTORS[type]) {
        const { rows } = await trx.raw(`${ancestor.sql} for share`, [parentId]);
        const up = rows[0] as { id: string; deleted_at: Date | null } | undefined;
        if (up?.deleted_at)
          throw new ConflictError(`The ${ancestor.label} ${up.id} of this ${type} is in the trash; restore it first.`);
      }
      await trx(repository.table).where({ id }).update({ deleted_at: null, deleted_by: null });
      return (await repository.find(trx, principal, id))!;
    });
  }
}
