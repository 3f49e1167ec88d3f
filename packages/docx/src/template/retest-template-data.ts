import {
  assetExcerpt,
  countRetestStatuses,
  type ReportDocument,
  type ReportDocumentFinding,
  type ResolvedReportStyle,
  type RetestResult,
} from '@service/report-model';
import { isEvidenceImage, readEvidenceImage } from '../evidence-images.ts';
import { excerptInLanguage } from '../evidence-plan.ts';
import { retestStatusKey } from '../messages/report-messages.ts';
import { assetLocation } from '../report-labels.ts';
import {
  RETEST_CHART_SIZE,
  RETEST_STATUS_COLOURS,
  RETEST_STATUS_ORDER,
  renderRetestChartPng,
  retestTotals,
} from '../retest-chart.ts';
import type { WordmlContext } from '../wordml/markdown-to-wordml.ts';
import { drawing, paragraph } from '../wordml/wordml.ts';
import { colourMarker } from './severity-colours.ts';
import type { TagKind, TagScope } from './tag-set.ts';

/**
 * The retest tags of the template language (docs/docx-templates.md, "Retests"). Every report has
 * them, so one template serves reports and retests: outside a retest the conditions are false,
 * texts are empty and lists have no items (`{#isRetest}...{/isRetest}` leaves a part out).
 * Inside `{#retestStatuses}` and `{#retestAssets}` the colour directives (`{shadeCell}`...) colour
 * by the row's retest status; inside `{#findings}`, `{retestShadeCell}`... by the finding's.
 */

const COLOURS = { shadeCell: 'text', shadeParagraph: 'text', colorText: 'text' } as const;

const RETEST_STATUS_ROW: TagScope = {
  name: 'retestStatuses',
  tags: { status: 'text', statusKey: 'text', count: 'text', color: 'text', ...COLOURS },
};

const RETEST_ASSET: TagScope = {
  name: 'retestAssets',
  tags: {
    host: 'text',
    ip: 'text',
    port: 'text',
    protocol: 'text',
    url: 'text',
    parameter: 'text',
    location: 'text',
    status: 'text',
    statusKey: 'text',
    statusColor: 'text',
    evidence: 'text',
    excerpt: 'text',
    ...COLOURS,
  },
};

/** Retest tags of the report level. */
export const RETEST_REPORT_TAGS: Record<string, TagKind> = {
  isRetest: 'text',
  retestRound: 'text',
  retestOf: 'text',
  originalReport: 'text',
  retestChart: 'rich',
  resolvedCount: 'text',
  partiallyResolvedCount: 'text',
  unresolvedCount: 'text',
  newCount: 'text',
  notRetestedCount: 'text',
  openCount: 'text',
  retestStatuses: { list: RETEST_STATUS_ROW },
};

/** Retest tags of a finding (`evidence` is the evidence scope of the finding level). */
export function retestFindingTags(evidence: TagScope): Record<string, TagKind> {
  return {
    retestStatus: 'text',
    retestStatusKey: 'text',
    retestStatusColor: 'text',
    retestShadeCell: 'text',
    retestShadeParagraph: 'text',
    retestColorText: 'text',
    retestDate: 'text',
    retestStatusSetByTester: 'text',
    retestStatusNote: 'text',
    retestNotes: 'rich',
    retestNotesText: 'text',
    riskAccepted: 'text',
    riskAcceptedNote: 'text',
    retestAssets: { list: RETEST_ASSET },
    hasRetestAssets: 'text',
    retestEvidence: { list: { ...evidence, name: 'retestEvidence' } },
    hasRetestEvidence: 'text',
  };
}

const hex = (status: keyof typeof RETEST_STATUS_COLOURS) => RETEST_STATUS_COLOURS[status].replace('#', '');
const colours = (status: keyof typeof RETEST_STATUS_COLOURS) => ({
  shadeCell: colourMarker('cell', RETEST_STATUS_COLOURS[status]),
  shadeParagraph: colourMarker('paragraph', RETEST_STATUS_COLOURS[status]),
  colorText: colourMarker('text', RETEST_STATUS_COLOURS[status]),
});

/** The values of the report-level retest tags. */
export function retestReportData(
  doc: ReportDocument,
  style: ResolvedReportStyle,
  ctx: WordmlContext,
): Record<string, unknown> {
  const { locale } = ctx;
  const results = doc.retest ? doc.findings.map((f) => f.retest).filter((r): r is RetestResult => r !== undefined) : [];
  const counts = countRetestStatuses(results);
  const totals = retestTotals(counts);
  let retestChart = '';
  if (results.length > 0) {
    const chart = readEvidenceImage(renderRetestChartPng(counts, style, locale));
    if (isEvidenceImage(chart))
      retestChart = paragraph(
        { align: 'center' },
        drawing(
          ctx.parts.image('retest-chart', chart),
          ctx.parts.drawingId(),
          RETEST_CHART_SIZE.width,
          RETEST_CHART_SIZE.height,
          locale.text('resolvedAndOpen'),
          RETEST_STATUS_ORDER.map((s) => `${locale.text(retestStatusKey(s))}: ${counts[s]}`).join(', '),
        ),
      );
  }
  const count = (n: number) => (doc.retest ? locale.integer(n) : '');
  return {
    isRetest: doc.retest !== undefined,
    retestRound: doc.retest ? locale.integer(doc.retest.round) : '',
    retestOf: doc.retest?.retestOf?.title ?? '',
    originalReport: doc.retest?.original?.title ?? '',
    retestChart,
    resolvedCount: count(counts.resolved),
    partiallyResolvedCount: count(counts.partially_resolved),
    unresolvedCount: count(counts.unresolved),
    newCount: count(counts.new),
    notRetestedCount: count(counts.not_retested),
    openCount: count(totals.open),
    retestStatuses: doc.retest
      ? RETEST_STATUS_ORDER.map((s) => ({
          status: locale.text(retestStatusKey(s)),
          statusKey: s,
          count: locale.integer(counts[s]),
          color: hex(s),
          ...colours(s),
        }))
      : [],
  };
}

/**
 * The values of a finding's retest tags. `notes` is the retest notes as paragraphs and text;
 * `evidence` turns evidence references into the items of an evidence loop.
 */
export function retestFindingData(
  f: ReportDocumentFinding,
  ctx: WordmlContext,
  notes: (markdown: string) => { xml: string; text: string },
  evidence: (list: RetestResult['evidence']) => unknown[],
): Record<string, unknown> {
  const r = f.retest;
  if (!r)
    return {
      retestStatus: '',
      retestStatusKey: '',
      retestStatusColor: '',
      retestShadeCell: '',
      retestShadeParagraph: '',
      retestColorText: '',
      retestDate: '',
      retestStatusSetByTester: false,
      retestStatusNote: '',
      retestNotes: '',
      retestNotesText: '',
      riskAccepted: false,
      riskAcceptedNote: '',
      retestAssets: [],
      hasRetestAssets: false,
      retestEvidence: [],
      hasRetestEvidence: false,
    };
  const { locale } = ctx;
  const text = notes(r.notes);
  const own = colours(r.status);
  const retestEvidence = evidence(r.evidence);
  return {
    retestStatus: locale.text(retestStatusKey(r.status)),
    retestStatusKey: r.status,
    retestStatusColor: hex(r.status),
    retestShadeCell: own.shadeCell,
    retestShadeParagraph: own.shadeParagraph,
    retestColorText: own.colorText,
    retestDate: r.retestedAt ? locale.date(r.retestedAt) : '',
    retestStatusSetByTester: r.statusSetBy === 'person',
    retestStatusNote: r.statusNote,
    retestNotes: text.xml,
    retestNotesText: text.text,
    riskAccepted: r.riskAccepted,
    riskAcceptedNote: r.riskAcceptedNote,
    retestAssets: r.assets.map((a) => ({
      host: a.host ?? '',
      ip: a.ip ?? '',
      port: a.port === undefined || a.port === null ? '' : String(a.port),
      protocol: a.protocol ?? '',
      url: a.url ?? '',
      parameter: a.parameter ?? '',
      location: assetLocation(a),
      status: locale.text(retestStatusKey(a.status)),
      statusKey: a.status,
      statusColor: hex(a.status),
      evidence: a.evidence,
      excerpt: a.evidence === '' ? '' : excerptInLanguage(assetExcerpt(a, f.title) ?? a.evidence, locale),
      ...colours(a.status),
    })),
    hasRetestAssets: r.assets.length > 0,
    retestEvidence,
    hasRetestEvidence: retestEvidence.length > 0,
  };
}
