import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import {
  InvalidTemplateError,
  PdfConversionError,
  PdfQueueFullError,
  renderReportDocx,
  renderTemplateDocx,
  type DocxPdfConverter,
} from '@service/docx';
import { HttpError, UnprocessableError } from '@service/http';
import { exportReportMarkdown } from '@service/markdown';
import { reportFindingsCsv } from '@service/report-csv';
import { resolveReportStyle, type ReportDocument } from '@service/report-model';
import type { BuildInfo } from '../../build-info.ts';
import { filesOf } from '../evidence-images/evidence-repository.ts';
import type { RestPrincipal } from '../../rest/rest-pipeline.ts';
import type { WorkspaceRepositories } from '../workspace-repositories.ts';
import { reportStyleOfRow } from '../style-library/style-library-resource.ts';

/** An export: the report's title (for the file name) and the document. */
export interface ReportExport<T> {
  title: string;
  body: T;
  /**
   * A weak ETag made from what the export was rendered from, for exports whose bytes differ from
   * one render to the next (the Word document's zip times, creation date and generated ids).
   */
  etag?: string;
}

/**
 * A weak ETag of everything a rendered export is made from: the same inputs give the same tag.
 * `renderer` names the build that rendered it: a new release may lay the same report out differently.
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
 * findings, and DOCX in our layout or the style's Word template. 404 when the report is not
 * visible; 422 `invalid_template` when the style's Word template cannot render it.
 */
export class ReportExportService {
  constructor(
    private readonly repositories: Pick<WorkspaceRepositories, 'reports' | 'styles' | 'evidence'>,
    /** One per process: conversions run one at a time behind a bounded queue. */
    private readonly pdfConverter: DocxPdfConverter,
    build: BuildInfo,
  ) {
    this.renderer = `${build.version}+${build.sha}`;
  }

  private readonly renderer: string;

  private load(db: Knex, principal: RestPrincipal, reportId: string): Promise<ReportDocument> {
    return this.repositories.reports.loadDocument(db, principal, reportId, 'export');
  }

  async markdown(db: Knex, principal: RestPrincipal, reportId: string): Promise<ReportExport<string>> {
    const doc = await this.load(db, principal, reportId);
    return { title: doc.title, body: exportReportMarkdown(doc) };
  }

  async csv(db: Knex, principal: RestPrincipal, reportId: string): Promise<ReportExport<Readable>> {
    const doc = await this.load(db, principal, reportId);
    return { title: doc.title, body: reportFindingsCsv(doc) };
  }

  async docx(db: Knex, principal: RestPrincipal, reportId: string): Promise<ReportExport<Uint8Array>> {
    const { styles, evidence } = this.repositories;
    const doc = await this.load(db, principal, reportId);
    // Why the repository and not a plain read: externals never see the style library.
    const styleRow = doc.style?.id ? await styles.find(db, principal, doc.style.id) : null;
    const style = resolveReportStyle(styleRow ? reportStyleOfRow(styleRow) : null);
    const images = await evidence.bytesLoader(db, principal);
    const logo = styleRow?.logo_image_id ? await images.byId(styleRow.logo_image_id) : null;
    // Why fixed here: the cover page prints the day, so it is one of the inputs the tag covers.
    const now = new Date();
    const options = { style, loadImage: images.byRef, logo, now };
    try {
      const template = styleRow?.template_storage_key
        ? await filesOf(evidence.files, principal).readBytes(styleRow.template_storage_key)
        : null;
      const bytes = template ? await renderTemplateDocx(template, doc, options) : await renderReportDocx(doc, options);
      const etag = renderTag(this.renderer, 'docx', {
        doc,
        style,
        template: template ? createHash('sha256').update(template).digest('hex') : null,
        logo: logo ? createHash('sha256').update(logo).digest('hex') : null,
        day: now.toISOString().slice(0, 10),
      });
      return { title: doc.title, body: bytes, etag };
    } catch (err) {
      if (err instanceof InvalidTemplateError)
        throw new UnprocessableError('invalid_template', err.message, err.toErrorDetails());
      throw err;
    }
  }

  /**
   * The DOCX (our layout or the style's template) as PDF, made by LibreOffice with every index and
   * field updated, so the contents page shows page numbers. 503 with `Retry-After` when the
   * conversion queue is full or LibreOffice is not installed.
   */
  async pdf(
    db: Knex,
    principal: RestPrincipal,
    reportId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ReportExport<Uint8Array>> {
    const docx = await this.docx(db, principal, reportId);
    try {
      const body = await this.pdfConverter.convert(docx.body, options);
      // Why from the DOCX's tag: the PDF is made from it, and differs byte for byte per conversion too.
      return { title: docx.title, body, etag: renderTag(this.renderer, 'pdf', docx.etag) };
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
