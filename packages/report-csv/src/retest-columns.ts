import type { AssetRetestStatus, ReportDocumentFinding, RetestAsset, RetestStatus } from '@service/report-model';

/** How the CSV names retest statuses (English, as the other headers and values are). */
export const RETEST_STATUS_TEXT: Readonly<Record<RetestStatus, string>> = {
  not_retested: 'Not retested',
  resolved: 'Resolved',
  partially_resolved: 'Partially resolved',
  unresolved: 'Unresolved',
  new: 'New',
};

const ASSET_STATUS_TEXT: Readonly<Record<AssetRetestStatus, string>> = RETEST_STATUS_TEXT;

/** `host:port/protocol url (parameter)`: an asset's place as one line. */
function placeText(a: RetestAsset): string {
  const place = [
    a.host ?? '',
    a.port !== undefined && a.port !== null ? `:${a.port}` : '',
    a.protocol ? `/${a.protocol}` : '',
  ].join('');
  return [place, a.url && a.url !== place ? a.url : '', a.parameter ? `parameter ${a.parameter}` : '']
    .filter((p) => p)
    .join(' ');
}

export interface RetestCsvColumn {
  header: string;
  cell(finding: ReportDocumentFinding): string;
}

/**
 * The columns a retest report adds after the finding columns: the finding's retest status, who
 * set it and why, the day, the notes, every asset with its status (one per line), and the risk
 * the client accepted. A finding without a result (none in a retest read from the workspace) has
 * empty cells.
 */
export const CSV_RETEST_COLUMNS: readonly RetestCsvColumn[] = [
  { header: 'Retest status', cell: (f) => (f.retest ? RETEST_STATUS_TEXT[f.retest.status] : '') },
  { header: 'Retest status set by', cell: (f) => f.retest?.statusSetBy ?? '' },
  { header: 'Retest status note', cell: (f) => f.retest?.statusNote ?? '' },
  { header: 'Retest date', cell: (f) => f.retest?.retestedAt ?? '' },
  { header: 'Retest notes', cell: (f) => f.retest?.notes ?? '' },
  {
    header: 'Asset retest statuses',
    cell: (f) => (f.retest?.assets ?? []).map((a) => `${placeText(a)}: ${ASSET_STATUS_TEXT[a.status]}`).join('\n'),
  },
  { header: 'Risk accepted', cell: (f) => (f.retest?.riskAccepted ? 'yes' : '') },
  { header: 'Risk accepted note', cell: (f) => f.retest?.riskAcceptedNote ?? '' },
];
