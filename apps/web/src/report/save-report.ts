import { api, call } from '../api/api-client.ts';
import type { Report } from '../api/api-types.ts';

/** Sends a report's changed fields with `expectedUpdatedAt` (the fields the report settings edit). */
export async function saveReport(id: string, changes: Partial<Report>, expectedUpdatedAt: string): Promise<Report> {
  const { title, status, language, findingOrder, styleId, summary } = changes;
  return call(
    api.PATCH('/rest/v1/reports/{id}', {
      params: { path: { id } },
      body: { title, status, language, findingOrder, styleId, summary, expectedUpdatedAt },
    }),
  );
}
