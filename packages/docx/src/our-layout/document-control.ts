import type { ReportDocument } from '@service/report-model';
import { fitColumnWidths } from '../wordml/column-widths.ts';
import { styledTable, TABLE_CELL_MARGINS } from '../wordml/markdown-to-wordml.ts';
import { bookmark, paragraph, run } from '../wordml/wordml.ts';
import type { ReportLocale } from '../messages/report-locale.ts';
import type { LayoutContext } from './layout-context.ts';
import { STYLE } from './layout-styles.ts';
import { documentControlParts } from './report-field-layout.ts';

export const DOCUMENT_CONTROL_BOOKMARK = 'document_control';

const TABLE_FIT = { fontSize: 18, cellMargins: TABLE_CELL_MARGINS };

/** Whether our layout writes "Document control": the report has some of it, and no tab shows it already. */
export function hasDocumentControlSection(doc: ReportDocument, locale: ReportLocale, inTabs: boolean): boolean {
  return !inTabs && documentControlParts(doc, locale).length > 0;
}

/**
 * "Document control", the first section after the contents: the people the report names (authors,
 * reviewers, distribution) and its version history. Empty when the report has none of them, or
 * when a tab shows them already (`inTabs`: the library's confidentiality notice does), so they are
 * printed once.
 */
export function documentControlSection(doc: ReportDocument, ctx: LayoutContext, inTabs: boolean): string {
  const { locale } = ctx;
  if (!hasDocumentControlSection(doc, locale, inTabs)) return '';
  const parts = documentControlParts(doc, locale);
  const out = [
    paragraph(
      { style: 'Heading1', pageBreakBefore: true },
      bookmark(ctx.parts.bookmarkId(), DOCUMENT_CONTROL_BOOKMARK, run(locale.text('documentControl'))),
    ),
  ];
  const facts = parts.flatMap((p) => (p.kind === 'fact' ? [[p.label, p.value] as const] : []));
  if (facts.length > 0)
    out.push(
      styledTable(
        {
          rows: facts.map(([label, value]) => [{ runs: run(label), style: STYLE.fieldLabel }, run(value)]),
          widths: fitColumnWidths(
            [{ labels: facts.map(([label]) => label), cells: [] }, { cells: facts.map(([, value]) => value) }],
            ctx.textWidth,
            TABLE_FIT,
          ),
          striped: false,
        },
        ctx,
      ),
    );
  for (const p of parts) {
    if (p.kind !== 'versions') continue;
    const header = [locale.text('version'), locale.text('date'), locale.text('author'), locale.text('change')];
    const texts = p.entries.map((v) => [v.version, locale.date(v.date), v.author, v.change]);
    out.push(
      paragraph({ spacing: { before: 240, after: 0 } }, ''),
      styledTable(
        {
          header: header.map((h) => run(h)),
          rows: texts.map((row) => row.map((t) => run(t))),
          widths: fitColumnWidths(
            header.map((h, c) => ({ header: h, cells: texts.map((t) => t[c] ?? '') })),
            ctx.textWidth,
            TABLE_FIT,
          ),
        },
        ctx,
      ),
    );
  }
  return out.join('');
}
