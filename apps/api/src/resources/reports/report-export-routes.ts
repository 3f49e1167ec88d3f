import type { Context } from 'koa';
import { Type } from 'typebox';
import { chargeDeferredCost, ifNoneMatchHits } from '@service/http';
import { Uuid } from '@service/report-model';
import type { AppContext } from '../../app-context.ts';
import { defineRestRoute } from '../../rest/define-rest-route.ts';
import { DOCX_TYPE } from '../style-library/word-template-routes.ts';
import type { ExportPlan, ReportExportService } from './report-export-service.ts';

/** A file name for a download: the report title without characters that break headers or paths. */
export function downloadName(title: string, extension: string): string {
  const base =
    title
      .normalize('NFKD')
      .replace(/[^\w .-]+/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 120) || 'report';
  return `${base}.${extension}`;
}

/** `Content-Disposition: attachment` with an ASCII fallback and the UTF-8 name (RFC 6266). */
export function attachment(title: string, extension: string): string {
  return (
    `attachment; filename="${downloadName(title, extension)}"; ` +
    `filename*=UTF-8''${encodeURIComponent(`${title.slice(0, 120) || 'report'}.${extension}`)}`
  );
}

const WARNINGS_HEADER = 'X-Export-Warnings';
const EXPORT_WARNINGS_HEADER = {
  [WARNINGS_HEADER]: {
    description:
      'How many things of the document a client would catch unfilled: report variables (`{{authors}}`) ' +
      'without a value, or with a name no variable has. `GET /reports/{id}/export-warnings` lists them.',
  },
};

const ExportWarningsBody = Type.Object({
  warnings: Type.Array(
    Type.Object({
      variable: Type.String({ description: 'The variable, without braces: `authors`.' }),
      where: Type.String({ description: 'Where it is: `tab "Confidentiality notice"`, `the summary`.' }),
      problem: Type.Enum(['no-value', 'unknown'], {
        description: '`no-value`: the report does not give it one yet; `unknown`: no variable has the name.',
      }),
      message: Type.String({ description: 'One sentence saying what gives it a value.' }),
    }),
  ),
});

/**
 * Answers an export from its plan: 304 from the validator alone while the caller's copy is
 * current, so nothing is rendered or converted and only the 304's cost is charged; otherwise the
 * rest of the route's cost is charged and the document made.
 */
async function answerExport<T>(
  ctx: Context,
  plan: ExportPlan<T>,
  send: (body: T) => void,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  ctx.set('ETag', plan.etag);
  if (ifNoneMatchHits(ctx.get('If-None-Match'), plan.etag)) {
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  await chargeDeferredCost(ctx);
  send(await plan.render(options));
}

/** What every export says of its ETag. */
const VALIDATOR =
  ' Carries a weak `ETag` computed before the document is made, from what it is made of (the report ' +
  'with its tabs, links, findings and evidence, the style with its Word template and logo, the ' +
  'service version; for DOCX and PDF the day on the cover page): with a current `If-None-Match` the ' +
  'answer is 304 and nothing is rendered or converted.';

/** Exports of a whole report: Markdown (re-importable), CSV of its findings, DOCX and PDF. */
export function registerReportExports(app: AppContext, exports: ReportExportService): void {
  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/reports/{id}/export-warnings',
    operationId: 'listReportExportWarnings',
    summary: 'What the DOCX and PDF of a report would show unfilled',
    description:
      "The report variables of the report's summary and tabs (`{{client}}`, `{{authors}}`, `{{versionHistory}}`...: " +
      'docs/library-authoring.md, "Report variables") that have no value for this report, or whose name no ' +
      'variable has, with where each is and what gives it a value. Its DOCX and PDF print them as written ' +
      '(`{{authors}}`) and count them in `X-Export-Warnings`. An empty list: nothing is left to fill.',
    tags: ['Reports'],
    params: Type.Object({ id: Uuid }),
    responses: {
      200: {
        description: 'The warnings, in document order.',
        schema: ExportWarningsBody,
        example: {
          warnings: [
            {
              variable: 'authors',
              where: 'tab "Confidentiality notice"',
              problem: 'no-value',
              message: 'tab "Confidentiality notice": {{authors}} has no value: set the report\'s `authors`',
            },
          ],
        },
      },
    },
    async handler(ctx, { params, principal }) {
      ctx.body = { warnings: await exports.warnings(principal.tenant, principal, params.id) };
    },
  });

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/reports/{id}/export-markdown',
    heavy: 'An export',
    operationId: 'exportReportMarkdown',
    summary: 'Export a whole report as Markdown',
    description:
      'One CommonMark file holding the whole report: metadata in front matter (title, ' +
      'client, project, dates, status, language, style, template), the summary, the ' +
      'tabs in order, the links, and every attached finding in report order with all ' +
      'its fields and references to its evidence images (by the SHA-256 of their ' +
      'bytes). Readable and editable in any editor; `POST ' +
      '/rest/v1/reports/import-markdown` turns it back into a report, and exporting ' +
      'that report gives the same bytes. Format: docs/markdown-format.md.' +
      VALIDATOR,
    tags: ['Reports'],
    params: Type.Object({ id: Uuid }),
    responses: {
      200: {
        description: 'The Markdown file (UTF-8, LF line ends).',
        contentType: 'text/markdown',
        schema: Type.String(),
        headers: { 'Content-Disposition': { description: 'attachment; filename="<report title>.md"' } },
      },
    },
    async handler(ctx, { params, principal }) {
      const plan = await exports.markdown(principal.tenant, principal, params.id);
      await answerExport(ctx, plan, (body) => {
        ctx.type = 'text/markdown; charset=utf-8';
        ctx.set('Content-Disposition', attachment(plan.title, 'md'));
        ctx.body = body;
      });
    },
  });

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/reports/{id}/export-csv',
    heavy: 'An export',
    operationId: 'exportReportCsv',
    summary: 'Export the findings of a report as CSV',
    description:
      'One row per attached finding in report order, after a header row; one column per ' +
      'field. RFC 4180 (CRLF line ends, quotes doubled), UTF-8 with a byte-order mark ' +
      'so Excel and LibreOffice read it correctly. Lists (CVEs, CWEs, hosts, assets, ' +
      'references) hold one item per line inside their cell. A cell that a spreadsheet ' +
      'would run as a formula starts with an apostrophe: every cell starting with `=`, `@`, ' +
      'tab, carriage return or NUL, and every cell starting with `+` or `-` unless it is a ' +
      'number (`-5`) or a list item or sentence (`- item`) without a function call, `|`, `!` ' +
      'or `#`.' +
      VALIDATOR,
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
      const plan = await exports.csv(principal.tenant, principal, params.id);
      await answerExport(ctx, plan, (body) => {
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', attachment(plan.title, 'csv'));
        ctx.body = body;
      });
    },
  });

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/reports/{id}/export-docx',
    heavy: 'An export',
    operationId: 'exportReportDocx',
    summary: 'Export a report as a Word document',
    description:
      'The report as DOCX. With a style whose Word template is set ' +
      '(`/style-library/{id}/word-template`), the template is filled; otherwise our own ' +
      'layout: cover page, table of contents, the tabs with their Markdown, a findings ' +
      'summary and severity chart, then each finding with CVSS, assets, text and ' +
      'evidence images, and page numbers. Fonts, colours, severity colours, page size ' +
      "and header/footer text come from the report's style." +
      VALIDATOR,
    tags: ['Reports'],
    cost: 10,
    notModifiedCost: 1,
    usesFileStore: 'read',
    params: Type.Object({ id: Uuid }),
    responses: {
      200: {
        description: 'The Word document.',
        contentType: DOCX_TYPE,
        schema: Type.String({ format: 'binary' }),
        headers: {
          'Content-Disposition': { description: 'attachment; filename="<report title>.docx"' },
          ...EXPORT_WARNINGS_HEADER,
        },
      },
      422: {
        description:
          "The style's Word template cannot render this report (`invalid_template`, each " +
          'problem with its tag and paragraph).',
        schema: 'Error',
      },
    },
    async handler(ctx, { params, principal }) {
      const plan = await exports.docx(principal.tenant, principal, params.id);
      ctx.set(WARNINGS_HEADER, String(plan.warnings?.length ?? 0));
      await answerExport(ctx, plan, (body) => {
        ctx.type = DOCX_TYPE;
        ctx.set('Content-Disposition', attachment(plan.title, 'docx'));
        ctx.body = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      });
    },
  });

  defineRestRoute(app, {
    method: 'get',
    path: '/rest/v1/reports/{id}/export-pdf',
    heavy: 'An export',
    operationId: 'exportReportPdf',
    summary: 'Export a report as PDF',
    description:
      "The same document as `export-docx` (our layout, or the style's Word template), converted by " +
      'LibreOffice with every index and field updated, so the contents page lists page numbers. ' +
      'Conversions run one at a time per service process behind a short queue; when it is full the ' +
      'answer is 503 with `Retry-After`. A large report takes seconds to minutes.' +
      VALIDATOR,
    tags: ['Reports'],
    cost: 10,
    notModifiedCost: 1,
    usesFileStore: 'read',
    params: Type.Object({ id: Uuid }),
    responses: {
      200: {
        description: 'The PDF.',
        contentType: 'application/pdf',
        schema: Type.String({ format: 'binary' }),
        headers: {
          'Content-Disposition': { description: 'attachment; filename="<report title>.pdf"' },
          ...EXPORT_WARNINGS_HEADER,
        },
      },
      422: {
        description:
          "The style's Word template cannot render this report (`invalid_template`, each " +
          'problem with its tag and paragraph).',
        schema: 'Error',
      },
      503: {
        description:
          'The PDF conversions of this process are busy, LibreOffice is not installed, or this ' +
          'report takes longer than the conversion limit (3 minutes) or is larger than 256 MB as ' +
          'DOCX (`unavailable`; the message says which); retry after `Retry-After` seconds. A ' +
          'database may be unavailable too.',
        schema: 'Error',
        headers: { 'Retry-After': { description: 'Seconds to wait before trying again.' } },
      },
    },
    async handler(ctx, { params, principal }) {
      // Why: a client that gives up frees its place in the queue, and stops its conversion.
      const aborted = new AbortController();
      ctx.res.once('close', () => {
        if (!ctx.res.writableFinished) aborted.abort();
      });
      const plan = await exports.pdf(principal.tenant, principal, params.id);
      ctx.set(WARNINGS_HEADER, String(plan.warnings?.length ?? 0));
      await answerExport(
        ctx,
        plan,
        (body) => {
          ctx.type = 'application/pdf';
          ctx.set('Content-Disposition', attachment(plan.title, 'pdf'));
          ctx.body = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
        },
        { signal: aborted.signal },
      );
    },
  });
}
