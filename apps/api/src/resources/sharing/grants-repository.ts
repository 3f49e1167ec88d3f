import type { Knex } from 'knex';

export type ShareTarget = 'project' | 'report';

export interface GrantRow {
  user_id: string;
  access: 'view' | 'edit';
  created_at: Date;
}

/** Shares of projects and reports with external collaborators (the `grants` table). */
export class GrantsRepository {
  list(db: Knex, type: ShareTarget, resourceId: string): Promise<GrantRow[]> {
    return db('grants')
      .where({ resource_type: type, resource_id: resourceId })
      .orderBy([{ column: 'created_at' }, { column: 'user_id' }])
      .select('user_id', 'access', 'created_at');
  }

  async upsert(
    db: Knex,
    grant: { userId: string; type: ShareTarget; resourceId: string; access: 'view' | 'edit'; createdBy: string },
  ): Promise<void> {
    await db('grants')
      .insert({
        user_id: grant.userId,
        resource_type: grant.type,
        resource_id: grant.resourceId,
        access: grant.access,
        created_by: grant.createdBy,
      })
      .onConflict(['user_id', 'resource_type', 'resource_id'])
      .merge({ access: grant.access, updated_at: db.fn.now(3) });
  }

  /** Removes a share; false when there was none. */
  async remove(db: Knex, type: ShareTarget, resourceId: string, userId: string): Promise<boolean> {
    return (await db('grants').where({ user_id: userId, resource_type: type, resource_id: resourceId }).delete()) > 0;
  }
}
