import {
  countRetestStatuses,
  retestAssetKey,
  affectedAssetKey,
  assetExcerpt,
  type ReportDocument,
  type ReportDocumentFinding,
  type RetestAsset,
  type RetestResult,
} from '@service/report-model';
import type { Block } from '../markdown-blocks.ts';
import { retestStatusKey } from '../messages/report-messages.ts';
import { assetLocation } from '../report-labels.ts';
import { RETEST_STATUS_COLOURS, RETEST_STATUS_ORDER, renderRetestChartPng } from '../retest-chart.ts';
import { fitColumnWidths } from '../wordml/column-widths.ts';
import { figure, markdownToWordml, styledTable, TABLE_CELL_MARGINS, writeCode } from '../wordml/markdown-to-wordml.ts';
import { bookmark, internalLink, paragraph, run } from '../wordml/wordml.ts';
import { docxColour, textColourOn } from './colours.ts';
import { findingBookmark } from './finding-section.ts';
import { chartParagraph } from './findings-overview.ts';
import { EVIDENCE_ASSET_LIMIT, EVIDENCE_CHARS, EXCERPT_ASSET_LIMIT, excerptInLanguage } from '../evidence-plan.ts';
import type { LayoutContext } from './layout-context.ts';
import { STYLE } from './layout-styles.ts';

/**
 * What our layout adds for a retest: a "Retest results" section before the findings overview (a
 * line naming the round and the report it retests, the chart of resolved against open findings,
 * and a table of every finding with its original severity, retest status and date), and in
 * each finding a "Retest" part (status and date, who set it, the client's risk acceptance, the
 * retest notes, the status of every affected asset, the retest's images and per-asset evidence).
 */

export const RETEST_BOOKMARK = 'retest_results';
const TABLE_FIT = { fontSize: 18, cellMargins: TABLE_CELL_MARGINS };

function statusCell(status: keyof typeof RETEST_STATUS_COLOURS, ctx: LayoutContext) {
  const fill = docxColour(RETEST_STATUS_COLOURS[status]);
  return { runs: run(ctx.locale.text(retestStatusKey(status)), { bold: true, color: textColourOn(fill) }), fill };
}

/** The "Retest results" section: intro, chart, and one summary row per finding. */
export function retestOverview(doc: ReportDocument, ctx: LayoutContext): string {
  const { locale } = ctx;
  const info = doc.retest!;
  const out: string[] = [
    paragraph(
      { style: 'Heading1', pageBreakBefore: true },
      bookmark(ctx.parts.bookmarkId(), RETEST_BOOKMARK, run(locale.text('retestResults'))),
    ),
    paragraph(
      null,
      run(
        // Why the original: "round 2 of the retest of <report>" names the report the client knows.
        (info.original ?? info.retestOf)
          ? locale.text('retestIntro', {
              round: locale.integer(info.round),
              title: (info.original ?? info.retestOf)!.title,
            })
          : locale.text('retestIntroUnlinked', { round: locale.integer(info.round) }),
      ),
    ),
  ];
  const results = doc.findings.map((f) => f.retest).filter((r): r is RetestResult => r !== undefined);
  if (results.length === 0) return out.join('');
  const counts = countRetestStatuses(results);
  out.push(
    chartParagraph(
      renderRetestChartPng(counts, ctx.style, locale),
      'retest-chart',
      locale.text('resolvedAndOpen'),
      RETEST_STATUS_ORDER.map((s) => `${locale.text(retestStatusKey(s))}: ${counts[s]}`).join(', '),
      ctx,
    ),
  );
  const texts = doc.findings.map((f, i) => [
    String(i + 1),
    f.title,
    locale.severity(f.severity),
    f.retest ? locale.text(retestStatusKey(f.retest.status)) : '',
    f.retest?.retestedAt ? locale.date(f.retest.retestedAt) : '',
  ]);
  const rows = doc.findings.map((f, i) => {
    const fill = docxColour(ctx.style.severityColors[f.severity]);
    const [number, title, severity, status, date] = texts[i]!;
    return [
      run(number!),
      internalLink(findingBookmark(i + 1), run(title!)),
      { runs: run(severity!, { bold: true, color: textColourOn(fill) }), fill },
      f.retest ? statusCell(f.retest.status, ctx) : run(status!),
      run(date!),
    ];
  });
  const headers = [
    locale.text('number'),
    locale.text('finding'),
    locale.text('originalSeverity'),
    locale.text('retestStatus'),
    locale.text('retestDate'),
  ];
  out.push(
    styledTable(
      {
        header: headers.map((h) => run(h)),
        rows,
        widths: fitColumnWidths(
          headers.map((header, c) => ({ header, cells: texts.map((t) => t[c]!) })),
          ctx.textWidth,
          TABLE_FIT,
        ),
        align: ['right', null, 'center', 'center', null],
      },
      ctx,
    ),
  );
  return out.join('');
}

const heading3 = (text: string) => paragraph({ style: 'Heading3' }, run(text));
const heading4 = (text: string) => paragraph({ style: 'Heading4' }, run(text));

/** A finding's "Retest" part, right after its section. `notes` are the parsed retest notes. */
export function retestFindingSection(f: ReportDocumentFinding, notes: Block[], ctx: LayoutContext): string {
  const r = f.retest;
  if (!r) return '';
  const { locale } = ctx;
  const label = (t: string) => ({ runs: run(t), style: STYLE.fieldLabel });
  const out: string[] = [heading3(locale.text('retest'))];
  const facts = [
    [
      locale.text('retestStatus'),
      locale.text(retestStatusKey(r.status)),
      locale.text('retestDate'),
      r.retestedAt ? locale.date(r.retestedAt) : '—',
    ],
  ];
  out.push(
    styledTable(
      {
        rows: [[label(facts[0]![0]!), statusCell(r.status, ctx), label(facts[0]![2]!), run(facts[0]![3]!)]],
        widths: fitColumnWidths(
          [0, 1, 2, 3].map((c) =>
            c % 2 === 0 ? { labels: facts.map((t) => t[c]!), cells: [] } : { cells: facts.map((t) => t[c]!) },
          ),
          ctx.textWidth,
          TABLE_FIT,
        ),
        striped: false,
      },
      ctx,
    ),
  );
  if (r.statusSetBy === 'person')
    out.push(
      paragraph(
        { spacing: { before: 60, after: 120 } },
        run(`${locale.text('statusSetByTester')}${r.statusNote.trim() ? ': ' : '.'}`, { bold: true }) +
          (r.statusNote.trim() ? run(r.statusNote, { italic: true }) : ''),
      ),
    );
  if (r.riskAccepted)
    out.push(
      paragraph(
        { spacing: { before: 60, after: 120 } },
        run(`${locale.text('riskAccepted')}${r.riskAcceptedNote.trim() ? ': ' : '.'}`, { bold: true }) +
          (r.riskAcceptedNote.trim() ? run(r.riskAcceptedNote) : ''),
      ),
    );
  const shown = new Set<string>();
  if (notes.length > 0) {
    out.push(heading4(locale.text('retestNotes')));
    out.push(markdownToWordml(notes, ctx, { baseHeading: 5, shown }));
  }
  if (r.assets.length > 0) {
    out.push(heading4(locale.text('statusPerAsset')));
    const texts = r.assets.map((a) => [assetLocation(a), a.url ?? '', locale.text(retestStatusKey(a.status))]);
    const header = [locale.text('host'), locale.text('url'), locale.text('retestStatus')];
    out.push(
      styledTable(
        {
          header: header.map((h) => run(h)),
          rows: r.assets.map((a, i) => [run(texts[i]![0]!), run(texts[i]![1]!), statusCell(a.status, ctx)]),
          widths: fitColumnWidths(
            header.map((h, c) => ({ header: h, cells: texts.map((t) => t[c]!) })),
            ctx.textWidth,
            TABLE_FIT,
          ),
          align: [null, null, 'center'],
        },
        ctx,
      ) + paragraph({ spacing: { before: 0, after: 0 } }, ''),
    );
  }
  const images = r.evidence.filter((e) => !shown.has(e.sha256));
  if (images.length > 0) {
    out.push(heading4(locale.text('retestEvidence')));
    for (const e of images) out.push(figure(e.sha256, e.caption, e.fileName, ctx, shown));
  }
  out.push(assetEvidence(f, r.assets, ctx));
  return out.join('');
}

/**
 * The retest's evidence of each asset (re-scan output), like a finding's evidence per asset; an
 * asset whose retest evidence is the finding's own (a finding first seen in the retest) is not
 * printed twice.
 */
function assetEvidence(f: ReportDocumentFinding, assets: readonly RetestAsset[], ctx: LayoutContext): string {
  const own = new Map(f.affectedAssets.map((a) => [affectedAssetKey(a), a.evidence ?? '']));
  const withEvidence = assets.filter((a) => a.evidence !== '' && own.get(retestAssetKey(a)) !== a.evidence);
  if (withEvidence.length === 0 || ctx.style.evidenceMode === 'none') return '';
  const { locale } = ctx;
  const out: string[] = [heading4(locale.text('retestEvidencePerAsset'))];
  const note = (text: string) => paragraph(null, run(text, { italic: true }));
  // As the style shows a finding's own evidence: excerpts of a few assets, or the whole of more.
  const mode = ctx.style.evidenceMode;
  const limit = mode === 'full' ? EVIDENCE_ASSET_LIMIT : EXCERPT_ASSET_LIMIT;
  for (const a of withEvidence.slice(0, limit)) {
    out.push(
      paragraph(
        { keepNext: true, spacing: { before: 120, after: 40 } },
        run([assetLocation(a), a.url].filter(Boolean).join(' ') || locale.text('asset'), { bold: true }) +
          run(` (${locale.text(retestStatusKey(a.status))})`),
      ),
    );
    const text = mode === 'full' ? a.evidence : excerptInLanguage(assetExcerpt(a, f.title) ?? a.evidence, locale);
    writeCode(text.length > EVIDENCE_CHARS ? text.slice(0, EVIDENCE_CHARS) : text, ctx, out, 0);
    if (text.length > EVIDENCE_CHARS)
      out.push(note(locale.text('evidenceCharactersLeftOut', { count: locale.integer(text.length - EVIDENCE_CHARS) })));
  }
  if (withEvidence.length > limit) out.push(note(locale.plural('evidenceAssetsLeftOut', withEvidence.length - limit)));
  return out.join('');
}
