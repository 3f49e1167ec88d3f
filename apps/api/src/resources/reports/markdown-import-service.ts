import type { Knex } from 'knex';
import { PayloadTooLargeError, UnprocessableError } from '@service/http';
import { MarkdownFormatError, type ImportedReportMarkdown } from '@service/markdown';
import type { ReportDocument } from '@service/report-model';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import { invalidReference } from '../invalid-reference.ts';
import { readMarkdownOffThread, type MarkdownSource } from './read-markdown-off-thread.ts';
import { releaseMemorySoon } from '../../system/release-memory.ts';
import type { WorkspaceRepositories } from '../workspace-repositories.ts';

/** What a Markdown import created: the answer of `import-markdown`. */
export interface MarkdownImportResult {
  reportId: string;
  projectId: string;
  tabs: number;
  links: number;
  findings: number;
  evidenceLinked: number;
  warnings: string[];
}

/**
 * A whole new report from a file in the export's format (docs/markdown-format.md): the file is
 * read, the project chosen, and the report with its tabs, links, findings and re-linked evidence
 * created in the caller's transaction.
 */
export class MarkdownImportService {
  /**
   * Imports this process runs at once; the others wait their turn. Why: reading a file is CPU work
   * on the event loop (about a second a megabyte) and creating its rows holds a connection and
   * the whole document in memory, so twelve parallel imports of one user would otherwise stall
   * everyone's requests, take twelve pooled connections and twelve documents' worth of memory.
   * Between two imports the event loop serves the other requests.
   */
  static readonly CONCURRENT_IMPORTS = 2;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly repositories: Pick<WorkspaceRepositories, 'reports' | 'projects'>) {}

  /** Runs `work` when fewer than CONCURRENT_IMPORTS imports are running, in arrival order. */
  async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= MarkdownImportService.CONCURRENT_IMPORTS)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      // Why a macrotask first: the request that got here lets requests already received run before it.
      await new Promise<void>((resolve) => setImmediate(resolve));
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else {
        this.running -= 1;
        if (this.running === 0) releaseMemorySoon();
      }
    }
  }

  /** Reads the file; a file not in the format is 422 `invalid_markdown` naming line, column and what was expected. */
  async read(source: MarkdownSource): Promise<ImportedReportMarkdown> {
    try {
      return await readMarkdownOffThread(source);
    } catch (err) {
      if (err instanceof MarkdownFormatError) {
        if (err.code === 'payload_too_large') throw new PayloadTooLargeError(err.message);
        throw new UnprocessableError('invalid_markdown', err.message, [
          { ...err.toDetail(), value: `line ${err.line}, column ${err.column}: expected ${err.expected}` },
        ]);
      }
      throw err;
    }
  }

  /** The project named by id, or the one project whose client and project names match the file's. */
  async targetProject(principal: RestPrincipal, projectId: string | undefined, doc: ReportDocument): Promise<string> {
    const { projects } = this.repositories;
    if (projectId) {
      if (!(await projects.find(principal.tenant, principal, projectId)))
        throw invalidReference('projectId', `The project ${projectId} does not exist or is not visible to you.`);
      return projectId;
    }
    const matches: Array<{ id: string }> = await projects
      .scoped(principal.tenant, principal)
      .where('r.name', doc.project.name)
      .andWhere('c.name', doc.client.name)
      .clearSelect()
      .select('r.id')
      .limit(2);
    if (matches.length === 1) return matches[0]!.id;
    throw invalidReference(
      'projectId',
      matches.length === 0
        ? `No project "${doc.project.name}" of a client "${doc.client.name}" is visible to ` +
            `you; create it or pass projectId.`
        : `Several projects "${doc.project.name}" of clients "${doc.client.name}" exist; pass projectId to choose one.`,
    );
  }

  async create(
    trx: Knex.Transaction,
    principal: RestPrincipal,
    projectId: string,
    { document, warnings }: ImportedReportMarkdown,
  ): Promise<MarkdownImportResult> {
    const created = await this.repositories.reports.createDocument(trx, principal, projectId, document);
    const evidence =
      document.tabs.reduce((n, t) => n + t.evidence.length, 0) +
      document.findings.reduce((n, f) => n + f.evidence.length, 0);
    return {
      reportId: created.reportId,
      projectId,
      tabs: document.tabs.length,
      links: document.links.length,
      findings: created.findingIds.length,
      evidenceLinked: evidence - created.unlinkedEvidence,
      warnings: [...warnings, ...created.warnings],
    };
  }

  /** Whether the report a stored answer names is still visible to the caller (for idempotent replays). */
  async stillVisible(principal: RestPrincipal, reportId: string): Promise<boolean> {
    return (await this.repositories.reports.find(principal.tenant, principal, reportId)) !== null;
  }
}
