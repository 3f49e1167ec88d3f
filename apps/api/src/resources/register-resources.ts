import type { AppContext } from '../app-context.ts';
import { registerClients } from './clients/clients-resource.ts';
import { registerEvidenceImages } from './evidence-images/evidence-images-resource.ts';
import { registerFindingLibrary } from './finding-library/finding-library-resource.ts';
import { registerFindings } from './findings/findings-resource.ts';
import { registerProjects } from './projects/projects-resource.ts';
import { registerReportFindings } from './report-findings/report-findings-resource.ts';
import { registerReportLinks } from './report-links/report-links-resource.ts';
import { registerReportTabs } from './report-tabs/report-tabs-resource.ts';
import { registerReportTemplates } from './report-templates/report-templates-resource.ts';
import { registerReports } from './reports/reports-resource.ts';
import { registerScanImport } from './scan-import/scan-import-routes.ts';
import { registerShares } from './sharing/share-routes.ts';
import { registerStyleLibrary } from './style-library/style-library-resource.ts';
import { registerTrash } from './trash/trash-routes.ts';
import { registerUsers } from './users/users-routes.ts';

/** Every REST resource under /rest/v1. */
export function registerResources(app: AppContext) {
  const clients = registerClients(app);
  const projects = registerProjects(app);
  const reports = registerReports(app);
  const resources = {
    clients,
    projects,
    reports,
    reportTabs: registerReportTabs(app),
    findings: registerFindings(app),
    reportFindings: registerReportFindings(app),
    reportLinks: registerReportLinks(app),
    findingLibrary: registerFindingLibrary(app),
    styleLibrary: registerStyleLibrary(app),
    reportTemplates: registerReportTemplates(app),
    evidenceImages: registerEvidenceImages(app),
  };
  registerUsers(app);
  registerTrash(app, { clients, projects, reports });
  registerShares(app, { projects, reports });
  registerScanImport(app, reports);
  return resources;
}
