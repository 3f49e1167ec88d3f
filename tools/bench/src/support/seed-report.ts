import { ApiKeyRepository } from '@service/auth';
import type { ReportDocument } from '@service/report-model';
import type { BenchService } from './bench-service.ts';

/**
 * A client and a project, an API key allowed on the client, and the principal of that key, as
 * repositories and services take it. For benchmarks that create their reports themselves.
 */
export async function seedProject(svc: BenchService, names: { client: string; project: string }) {
  const cp = svc.dbs.controlPlane;
  const tenant = svc.dbs.tenant;
  const org = await cp('organizations').first();
  const user = await cp('users').where({ role: 'admin' }).first();
  const [client] = await tenant('clients').insert({ name: names.client }).returning('id');
  const [project] = await tenant('projects').insert({ client_id: client.id, name: names.project }).returning('id');
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
  return { key: value, principal, projectId: project.id as string };
}

/**
 * A client, a project and a report created from `doc` through the report repository (as the
 * Markdown import does), plus an API key allowed on the client. For export benchmarks.
 */
export async function seedReport(svc: BenchService, doc: ReportDocument): Promise<{ key: string; reportId: string }> {
  const { key, principal, projectId } = await seedProject(svc, { client: doc.client.name, project: doc.project.name });
  const created = await svc.dbs.tenant.transaction((trx) =>
    svc.app.repositories.reports.createDocument(trx, principal, projectId, doc),
  );
  return { key, reportId: created.reportId };
}
