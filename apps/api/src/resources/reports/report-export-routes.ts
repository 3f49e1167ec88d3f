import { Type } from 'typebox';
import { reportFindingsCsv } from '@service/report-csv';
import { Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import type { ReportRepository } from './reports-repository.ts';

/** A file name for a download: the report title without characters that break headers or paths. */
export function downloadName(title: string, extension: string): string {
  const base = title.normalize('NFKD').replace(/[^\w .-]+/g, '').replace(/\s+/g, ' ').trim().slice(0, 120) || 'report';
  return `${base}.${extension}`;
}

/** `Content-Disposition: attachment` with an ASCII fallback and the UTF-8 name (RFC 6266). */
export function attachment(title: string, extension: string): string {
  return `attachment; filename="${downloadName(title, extension)}"; filename*=UTF-8''${encodeURIComponent(`${title.slice(0, 120) || 'report'}.${extension}`)}`;
}

/** Exports of a whole report: CSV of its findings (Markdown and DOCX are added beside it). */
export function registerReportExports(app: AppContext, reports: ReportRepository): void {
  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/reports/{id}/export-csv',
    operationId: 'exportReportCsv',
    summary: 'Export the findings of a report as CSV',
    description:
      'One row per attached finding in report order, after a header row; one column per field. RFC 4180 (CRLF line ends, quotes doubled), UTF-8 with a byte-order mark so Excel and LibreOffice read it correctly. Lists (CVEs, CWEs, hosts, assets, references) hold one item per line inside their cell. A cell that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or carriage return) starts with an apostrophe instead. Streamed.',
    tags: ['Reports'],
    params: Type.Object({ id: Uuid }),
    responses: {
      200: {
        description: 'The CSV file.',
        contentType: 'text/csv',
        schema: Type.String(),
        headers: { 'Content-Disposition': { description: 'attachment; filename="<report title>.csv"' } },
      },
    },
    async handler(ctx, { params, principal }) {
      const doc = await reports.loadDocument(principal.tenant, principal, params.id, 'export');
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('Content-Disposition', attachment(doc.title, 'csv'));
      ctx.body = reportFindingsCsv(doc);
    },
  });
}
