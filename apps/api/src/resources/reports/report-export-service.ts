import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import {
  fillReportVariables,
  InvalidTemplateError,
  PdfConversionError,
  PdfQueueFullError,
  renderReportDocx,
  renderTemplateDocx,
  type DocxPdfConverter,
  type VariableProblem,
} from '@service/docx';
import { HttpError, UnprocessableError } from '@service/http';
import { exportReportMarkdown } from '@service/markdown';
import { reportFindingsCsv } from '@service/report-csv';
import { resolveReportStyle, type ReportDocument } from '@service/report-model';
import type { BuildInfo } from '../../build-info.ts';
import { readWithinBulkLimit } from '../bulk-work.ts';
import { filesOf } from '../evidence-images/evidence-repository.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { WorkspaceRepositories } from '../workspace-repositories.ts';
import { reportStyleOfRow } from '../style-library/style-library-resource.ts';

/** The exports of a report. */
export type ExportKind = 'markdown' | 'csv' | 'docx' | 'pdf';

/**
 * An export read from the database but not made yet: its title (for the file name), its validator,
 * and how to make it. A client holding a current copy is answered 304 from `etag` alone, so
 * nothing is rendered or converted for it.
 */
export interface ExportPlan<T> {
  title: string;
  /**
   * A weak ETag of everything the export is made from (the report as loaded, with its tabs, links,
   * findings and evidence references; the style, its Word template and logo by SHA-256; the
   * renderer; for DOCX and PDF the day on the cover page). Weak: the bytes of a Word document differ
   * from one render to the next (zip times, creation date, generated ids), and text may be compressed.
   */
  etag: string;
  render(options?: { signal?: AbortSignal }): Promise<T>;
  /** What a client would catch in the document: report variables without a value (DOCX and PDF). */
  warnings?: VariableProblem[];
}

/**
 * A weak ETag of everything a rendered export is made from: the same inputs give the same tag.
 * `renderer` names the build that renders it: a new release may lay the same report out differently.
 */
function renderTag(renderer: string, kind: string, inputs: unknown): string {
  const digest = createHash('sha256')
    .update(`${kind}\u0000${renderer}\u0000`)
    .update(JSON.stringify(inputs))
    .digest('base64url');
  return `W/"${digest.slice(0, 27)}"`;
}

/**
 * The exports of a whole report, as the caller may see it: Markdown (re-importable), CSV of its
 * findings, DOCX in our layout or the style's Word template, and that DOCX as PDF. Each is planned
 * first (read, tagged) and made only when asked. 404 when the report is not visible; 422
 * `invalid_template` when the style's Word template cannot render it.
 */
export class ReportExportService {
  /** How many documents this service has made, per kind (a 304 makes none). */
  readonly rendered: Record<ExportKind, number> = { markdown: 0, csv: 0, docx: 0, pdf: 0 };

  constructor(
    private readonly repositories: Pick<WorkspaceRepositories, 'reports' | 'styles' | 'evidence'>,
    /** One per process: conversions run one at a time behind a bounded queue. */
    private readonly pdfConverter: DocxPdfConverter,
    build: BuildInfo,
    /** The statement time limit of reading a whole report (BULK_STATEMENT_TIMEOUT_MS); unset: the pool's. */
    private readonly bulkStatementMs?: number,
  ) {
    this.renderer = `${build.version}+${build.sha}`;
  }

  private readonly renderer: string;

  private load(db: Knex, principal: RestPrincipal, reportId: string): Promise<ReportDocument> {
    const read = (trx: Knex) => this.repositories.reports.loadDocument(trx, principal, reportId, 'export');
    return this.bulkStatementMs === undefined
      ? read(db)
      : readWithinBulkLimit(db, this.bulkStatementMs, 'Reading the report to export', read);
  }

  /**
   * What the DOCX and PDF of a report would show a client unfilled: each report variable of its
   * text without a value (`{{authors}}` before the report names its authors), or with a name no
   * variable has, where it is and what gives it a value.
   */
  async warnings(db: Knex, principal: RestPrincipal, reportId: string): Promise<VariableProblem[]> {
    return fillReportVariables(await this.load(db, principal, reportId), new Date()).problems;
  }

  async markdown(db: Knex, principal: RestPrincipal, reportId: string): Promise<ExportPlan<string>> {
    const doc = await this.load(db, principal, reportId);
    return {
      title: doc.title,
      etag: renderTag(this.renderer, 'markdown', { doc }),
      render: async () => {
        this.rendered.markdown += 1;
        return exportReportMarkdown(doc);
      },
    };
  }

  async csv(db: Knex, principal: RestPrincipal, reportId: string): Promise<ExportPlan<Readable>> {
    const doc = await this.load(db, principal, reportId);
    return {
      title: doc.title,
      etag: renderTag(this.renderer, 'csv', { doc }),
      render: async () => {
        this.rendered.csv += 1;
        return reportFindingsCsv(doc);
      },
    };
  }

  /**
   * The Word document: its tag from the report, the style row, the Word template's and the logo's
   * SHA-256 and the day on the cover, read without opening a file; the files are read to render.
   */
  async docx(db: Knex, principal: RestPrincipal, reportId: string): Promise<ExportPlan<Uint8Array>> {
    const { styles, evidence } = this.repositories;
    const doc = await this.load(db, principal, reportId);
    // Why the repository and not a plain read: externals never see the style library.
    const styleRow = doc.style?.id ? await styles.find(db, principal, doc.style.id) : null;
    const style = resolveReportStyle(styleRow ? reportStyleOfRow(styleRow) : null);
    const logoRow = styleRow?.logo_image_id ? await evidence.find(db, principal, styleRow.logo_image_id) : null;
    // Why fixed here: the cover page prints the day, so it is one of the inputs the tag covers.
    const now = new Date();
    const etag = renderTag(this.renderer, 'docx', {
      doc,
      style,
      template: styleRow?.template_sha256 ?? null,
      logo: logoRow?.sha256 ?? null,
      day: now.toISOString().slice(0, 10),
    });
    const render = async (): Promise<Uint8Array> => {
      this.rendered.docx += 1;
      const images = await evidence.bytesLoader(db, principal);
      const logo = logoRow ? await images.byId(logoRow.id) : null;
      const options = { style, loadImage: images.byRef, logo, now };
      try {
        const template = styleRow?.template_storage_key
          ? await filesOf(evidence.files, principal).readBytes(styleRow.template_storage_key)
          : null;
        return template ? await renderTemplateDocx(template, doc, options) : await renderReportDocx(doc, options);
      } catch (err) {
        if (err instanceof InvalidTemplateError)
          throw new UnprocessableError('invalid_template', err.message, err.toErrorDetails());
        throw err;
      }
    };
    return { title: doc.title, etag, render, warnings: fillReportVariables(doc, now).problems };
  }

  /**
   * The DOCX (our layout or the style's template) as PDF, made by LibreOffice with every index and
   * field updated, so the contents page shows page numbers; tagged from the DOCX's tag (the PDF is
   * made from it, and differs byte for byte per conversion too). 503 with `Retry-After` when the
   * conversion queue is full or LibreOffice is not installed.
   */
  async pdf(db: Knex, principal: RestPrincipal, reportId: string): Promise<ExportPlan<Uint8Array>> {
    const docx = await this.docx(db, principal, reportId);
    return {
      title: docx.title,
      etag: renderTag(this.renderer, 'pdf', docx.etag),
      warnings: docx.warnings,
      render: async (options = {}) => {
        const bytes = await docx.render();
        this.rendered.pdf += 1;
        return this.convert(bytes, options);
      },
    };
  }

  private async convert(docx: Uint8Array, options: { signal?: AbortSignal }): Promise<Uint8Array> {
    try {
      return await this.pdfConverter.convert(docx, options);
    } catch (err) {
      if (err instanceof PdfQueueFullError)
        throw new HttpError(503, 'unavailable', 'PDF exports are busy; try again shortly.', {
          headers: { 'Retry-After': String(err.retryAfterSeconds) },
          expose: true,
        });
      if (err instanceof PdfConversionError && err.reason === 'not-installed')
        throw new HttpError(503, 'unavailable', 'PDF export needs LibreOffice, which this installation lacks.', {
          cause: err,
          headers: { 'Retry-After': '3600' },
          expose: true,
        });
      // Why 503 and not 500: nothing is broken; this report is more than one conversion may take
      // (time or size) on this machine, and its DOCX export still works.
      if (err instanceof PdfConversionError && (err.reason === 'timeout' || err.reason === 'too-large'))
        throw new HttpError(
          503,
          'unavailable',
          'This report is too large to convert to PDF within the limits of this installation; export it as DOCX.',
          { cause: err, headers: { 'Retry-After': '600' }, expose: true },
        );
      throw err;
    }
  }
}
