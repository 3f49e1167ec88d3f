import type { ReportDocument } from '@service/report-model';
import { fitColumnWidths } from '../wordml/column-widths.ts';
import { styledTable, TABLE_CELL_MARGINS } from '../wordml/markdown-to-wordml.ts';
import { bookmark, paragraph, run } from '../wordml/wordml.ts';
import type { LayoutContext } from './layout-context.ts';
import { STYLE } from './layout-styles.ts';
import { documentControlParts } from './report-field-layout.ts';

export const DOCUMENT_CONTROL_BOOKMARK = 'document_control';

const TABLE_FIT = { fontSize: 18, cellMargins: TABLE_CELL_MARGINS };

/**
 * "Document control", the first section after the contents: the people the report names (authors,
 * reviewers, distribution) and its version history. Empty when the report has none of them, or
 * when its tabs show them already (`shownByTabs`).
 */
export function documentControlSection(
  doc: ReportDocument,
  ctx: LayoutContext,
  shownByTabs: ReadonlySet<string>,
): string {
  const { locale } = ctx;
  const parts = documentControlParts(doc, locale, shownByTabs);
  if (parts.length === 0) return '';
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
