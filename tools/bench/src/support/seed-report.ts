import { ApiKeyRepository } from '@service/auth';
import type { ReportDocument } from '@service/report-model';
import type { BenchService } from './bench-service.ts';

/**
 * A client, a project and a report created from `doc` through the report repository (as the
 * Markdown import does), plus an API key allowed on the client. For export benchmarks.
 */
export async function seedReport(svc: BenchService, doc: ReportDocument): Promise<{ key: string; reportId: string }> {
  const cp = svc.dbs.controlPlane;
  const tenant = svc.dbs.tenant;
  const org = await cp('organizations').first();
  const user = await cp('users').where({ role: 'admin' }).first();
  const [client] = await tenant('clients').insert({ name: doc.client.name }).returning('id');
  const [project] = await tenant('projects').insert({ client_id: client.id, name: doc.project.name }).returning('id');
  const keys = new ApiKeyRepository(cp);
  const { key, value } = await keys.create({
    organizationId: org.id,
    userId: user.id,
    name: 'bench',
    scope: 'read-write',
    expiresAt: new Date(Date.now() + 86_400_000),
    clientIds: [client.id],
  });
  const principal = {
    keyId: key.id,
    userId: user.id,
    organizationId: org.id,
    role: 'admin' as const,
    scope: 'read-write' as const,
    allowedClientIds: [client.id],
    plan: 'business',
    tenantDatabase: 'default',
    tenant,
  };
  const created = await tenant.transaction((trx) =>
    svc.app.repositories.reports.createDocument(trx, principal, project.id, doc),
  );
  return { key: value, reportId: created.reportId };
}
