import type { AppContext } from '../app-context.ts';
import { defineResource } from './define-resource.ts';
import { registerEvidenceImages } from './evidence-images/evidence-images-resource.ts';
import { registerLibraryItems } from './library-items/library-items-routes.ts';
import { registerFindingOrder } from './reports/finding-order-routes.ts';
import { registerReportExports } from './reports/report-export-routes.ts';
import { registerReportImport } from './reports/report-import-routes.ts';
import { registerRetestRoutes } from './retests/retest-routes.ts';
import { registerScanImport } from './scan-import/scan-import-routes.ts';
import { registerShares } from './sharing/share-routes.ts';
import { registerWordTemplateRoutes } from './style-library/word-template-routes.ts';
import { registerTrash } from './trash/trash-routes.ts';
import { registerUsers } from './users/users-routes.ts';

/** Every REST resource under /rest/v1, each backed by its repository. */
export function registerResources(app: AppContext): void {
  const r = app.repositories;
  for (const repository of [
    r.clients,
    r.projects,
    r.reports,
    r.reportTabs,
    r.findings,
    r.reportFindings,
    r.reportLinks,
    r.findingTemplates,
    r.styles,
    r.reportTemplates,
    r.narratives,
    r.scopingTemplates,
    r.projectTypes,
    r.retestResults,
  ]) {
    defineResource(app, repository);
  }
  registerEvidenceImages(app, r.evidence);
  registerLibraryItems(app);
  registerUsers(app);
  registerTrash(app, r.trash, { client: r.clients, project: r.projects, report: r.reports });
  registerShares(app, r.grants, { project: r.projects, report: r.reports });
  registerScanImport(app, app.services.scanImport);
  registerReportExports(app, app.services.reportExports);
  registerFindingOrder(app, r.reports);
  registerWordTemplateRoutes(app, r.styles, r.files);
  registerReportImport(app, app.services.markdownImport);
  registerRetestRoutes(app, app.services.retests, r.reports);
}
