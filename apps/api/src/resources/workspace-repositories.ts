import type { StoredFiles } from '@service/storage';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';
import { EvidenceRepository, evidenceCleanup } from './evidence-images/evidence-repository.ts';
import { FindingTemplateRepository } from './finding-library/finding-template-repository.ts';
import { FindingRepository } from './findings/findings-repository.ts';
import { clientsDeclaration } from './clients/clients-resource.ts';
import { projectsDeclaration } from './projects/projects-resource.ts';
import { reportFindingsDeclaration } from './report-findings/report-findings-resource.ts';
import { reportLinksDeclaration } from './report-links/report-links-resource.ts';
import { reportTabsDeclaration } from './report-tabs/report-tabs-resource.ts';
import { reportTemplatesDeclaration } from './report-templates/report-templates-resource.ts';
import { ReportRepository } from './reports/reports-repository.ts';
import { ResourceRepository } from './resource-repository.ts';
import { ensureRetestResults, RetestResultRepository } from './retests/retest-repository.ts';
import { TableStatistics } from './table-statistics.ts';
import { GrantsRepository } from './sharing/grants-repository.ts';
import { narrativesDeclaration } from './narratives/narratives-resource.ts';
import { projectTypesDeclaration } from './project-types/project-types-resource.ts';
import { scopingTemplatesDeclaration } from './scoping-templates/scoping-templates-resource.ts';
import { styleLibraryDeclaration } from './style-library/style-library-resource.ts';
import { TrashRepository } from './trash/trash-repository.ts';

/**
 * Every repository of the tenant workspace. Built once per app; each method takes the tenant
 * handle (or transaction) and the principal of the request, so nothing here holds a connection
 * or assumes there is only one tenant database.
 */
export function createWorkspaceRepositories(options: {
  files: StoredFiles;
  evidenceMaxBytes: number;
  /** Background work that failed (a statistics refresh after a bulk import); the request had succeeded. */
  onBackgroundError?: (event: string, err: unknown) => void;
  /** Runs in the transaction that created a client (the key's allow-list may take it). */
  onClientCreated?: (principal: RestPrincipal, clientId: string) => Promise<void>;
}) {
  const { files } = options;
  const evidence = new EvidenceRepository(files, options.evidenceMaxBytes);
  const findingTemplates = new FindingTemplateRepository();
  const statistics = new TableStatistics((err) => options.onBackgroundError?.('statistics_refresh_failed', err));
  const findings = new FindingRepository(files, statistics);
  const reports = new ReportRepository(findings, evidence);
  const clients = new ResourceRepository(clientsDeclaration({ created: options.onClientCreated }));
  const projects = new ResourceRepository(projectsDeclaration);
  return {
    files,
    clients,
    projects,
    reports,
    reportTabs: new ResourceRepository(
      reportTabsDeclaration((trx, row, principal) => evidenceCleanup(files, trx, principal, { reportTabId: row.id })),
    ),
    findings,
    reportFindings: new ResourceRepository(
      reportFindingsDeclaration({
        reorder: (trx, reportId) => findings.orderBySeverity(trx, [reportId]),
        attached: (trx, reportId, userId) => ensureRetestResults(trx, reportId, userId),
        beforeDelete: (trx, row, principal) =>
          evidenceCleanup(files, trx, principal, {
            retestResultOf: { reportId: String(row.report_id), findingId: String(row.finding_id) },
          }),
      }),
    ),
    reportLinks: new ResourceRepository(reportLinksDeclaration),
    findingTemplates,
    styles: new ResourceRepository(styleLibraryDeclaration),
    reportTemplates: new ResourceRepository(reportTemplatesDeclaration),
    narratives: new ResourceRepository(narrativesDeclaration),
    scopingTemplates: new ResourceRepository(scopingTemplatesDeclaration),
    projectTypes: new ResourceRepository(projectTypesDeclaration),
    evidence,
    retestResults: new RetestResultRepository(),
    grants: new GrantsRepository(),
    statistics,
    trash: new TrashRepository({ client: clients, project: projects, report: reports }),
  };
}

export type WorkspaceRepositories = ReturnType<typeof createWorkspaceRepositories>;
