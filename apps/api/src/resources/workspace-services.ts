import type { DocxPdfConverter } from '@service/docx';
import type { BuildInfo } from '../build-info.ts';
import { MarkdownImportService } from './reports/markdown-import-service.ts';
import { ReportExportService } from './reports/report-export-service.ts';
import { RetestService } from './retests/retest-service.ts';
import { ScanImportService } from './scan-import/scan-import-service.ts';
import type { WorkspaceRepositories } from './workspace-repositories.ts';

/**
 * The workspace's services: work that spans repositories and parsers or renderers (imports and
 * exports). Handlers call them in a few lines; tests call them without HTTP.
 */
export function createWorkspaceServices(
  repositories: WorkspaceRepositories,
  options: {
    pdf: DocxPdfConverter;
    build: BuildInfo;
    /** BULK_STATEMENT_TIMEOUT_MS, for reading what an export is made of. */
    bulkStatementMs?: number;
  },
) {
  const retests = new RetestService(repositories);
  return {
    retests,
    scanImport: new ScanImportService(repositories, retests),
    reportExports: new ReportExportService(repositories, options.pdf, options.build, options.bulkStatementMs),
    markdownImport: new MarkdownImportService(repositories),
  };
}

export type WorkspaceServices = ReturnType<typeof createWorkspaceServices>;
