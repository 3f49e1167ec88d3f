import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call } from '../api/api-client.ts';
import type { Finding, FindingStatus, Report, ReportFinding, RetestStatus, Severity } from '../api/api-types.ts';
import { formatNumber, t } from '../i18n/i18n.ts';
import { canEdit } from '../session.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { FilterSelect } from '../ui/list-controls.tsx';
import { SEVERITY_ORDER, SeverityBadge, severityLabel } from '../ui/severity-badge.tsx';
import { ImportDialog } from './import-dialog.tsx';
import { LibraryPicker } from './library-picker.tsx';

export const FINDING_STATUSES: readonly FindingStatus[] = ['open', 'resolved', 'accepted-risk', 'false-positive'];
export const RETEST_STATUSES: readonly RetestStatus[] = [
  'not_retested',
  'resolved',
  'partially_resolved',
  'unresolved',
  'new',
];

export function findingStatusLabel(s: FindingStatus): string {
  return t(
    { open: 'Open', resolved: 'Resolved', 'accepted-risk': 'Risk accepted', 'false-positive': 'False positive' }[s],
  );
}

export function retestStatusLabel(s: RetestStatus): string {
  return t(
    {
      not_retested: 'Not retested',
      resolved: 'Resolved',
      partially_resolved: 'Partially resolved',
      unresolved: 'Unresolved',
      new: 'New',
    }[s],
  );
}

export interface OrderedFinding {
  finding: Finding;
  link: ReportFinding | undefined;
}

/**
 * The report's findings in its order: severity badges and counts, filters, drag (or Alt+Arrow,
 * or the move buttons) to reorder, and the ways to add findings.
 */
export function FindingsPanel(props: {
  report: Report;
  findings: OrderedFinding[];
  onChanged(): void;
  onReordered(ids: string[], updatedAt: string): void;
}) {
  const { report, findings } = props;
  const { route } = useLocation();
  const editable = canEdit();
  const [severity, setSeverity] = useState('');
  const [status, setStatus] = useState('');
  const [retest, setRetest] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [dragged, setDragged] = useState<string | null>(null);
  const [announce, setAnnounce] = useState('');
  const [dialog, setDialog] = useState<'import' | 'library' | null>(null);
  const counts = useMemo(() => {
    const c: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
    for (const { finding } of findings) c[finding.severity] += 1;
    return c;
  }, [findings]);
  const shown = findings.filter(
    ({ finding, link }) =>
      (!severity || finding.severity === severity) &&
      (!status || finding.status === status) &&
      (!retest || link?.retestStatus === retest),
  );
  const filtered = shown.length !== findings.length;
  const positions = useMemo(() => new Map(findings.map((f, i) => [f.finding.id, i])), [findings]);

  const reorder = async (ids: string[]) => {
    setError(null);
    try {
      const result = await call(
        api.PUT('/rest/v1/reports/{id}/finding-order', {
          params: { path: { id: report.id } },
          body: { findingIds: ids, expectedUpdatedAt: report.updatedAt },
        }),
      );
      props.onReordered(result.findingIds, result.updatedAt);
    } catch (err) {
      setError(err);
      props.onChanged();
    }
  };
  const move = (id: string, to: number) => {
    const ids = findings.map((f) => f.finding.id);
    const from = ids.indexOf(id);
    if (from < 0 || to < 0 || to >= ids.length || from === to) return;
    ids.splice(from, 1);
    ids.splice(to, 0, id);
    const title = findings[from]?.finding.title ?? '';
    setAnnounce(t('{title} moved to position {position} of {count}.', { title, position: to + 1, count: ids.length }));
    void reorder(ids);
  };
  const newFinding = async () => {
    try {
      const created = await call(
        api.POST('/rest/v1/findings', { body: { reportId: report.id, title: t('New finding'), severity: 'medium' } }),
      );
      route(`/reports/${report.id}/findings/${created.id}`);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="findings-title">
      <div class="section-head">
        <h2 id="findings-title">{t('Findings')}</h2>
        <ul class="counts" aria-label={t('Findings per severity')}>
          {SEVERITY_ORDER.map((s) => (
            <li key={s}>
              <SeverityBadge severity={s} /> {formatNumber(counts[s])}
            </li>
          ))}
        </ul>
      </div>
      {editable ? (
        <div class="actions">
          <button type="button" class="button" onClick={() => void newFinding()}>
            {t('New finding')}
          </button>
          <button type="button" class="button secondary" onClick={() => setDialog('library')}>
            {t('New from library')}
          </button>
          <button type="button" class="button secondary" onClick={() => setDialog('import')}>
            {t('Import scan')}
          </button>
        </div>
      ) : null}
      <div class="toolbar">
        <FilterSelect
          label={t('Severity')}
          value={severity}
          onChange={setSeverity}
          choices={SEVERITY_ORDER.map((s) => ({ value: s, label: severityLabel(s) }))}
        />
        <FilterSelect
          label={t('Status')}
          value={status}
          onChange={setStatus}
          choices={FINDING_STATUSES.map((s) => ({ value: s, label: findingStatusLabel(s) }))}
        />
        <FilterSelect
          label={t('Retest status')}
          value={retest}
          onChange={setRetest}
          choices={RETEST_STATUSES.map((s) => ({ value: s, label: retestStatusLabel(s) }))}
        />
      </div>
      <p class="hint">
        {report.findingOrder === 'manual'
          ? t('Arranged by hand. Drag a finding, or focus it and press Alt+Arrow up or down.')
          : t('Sorted by severity. Moving a finding arranges them by hand from then on.')}
      </p>
      <span class="visually-hidden" role="status" aria-live="polite">
        {announce}
      </span>
      <ErrorNotice error={error} />
      <ol class="finding-list" aria-label={t('Findings in report order')} data-count={findings.length}>
        {shown.map(({ finding, link }, i) => {
          const position = positions.get(finding.id) ?? i;
          return (
            <li
              key={finding.id}
              class={dragged === finding.id ? 'finding-row dragging' : 'finding-row'}
              draggable={editable && !filtered}
              data-finding-id={finding.id}
              onDragStart={(e) => {
                setDragged(finding.id);
                e.dataTransfer?.setData('text/plain', finding.id);
              }}
              onDragEnd={() => setDragged(null)}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => {
                e.preventDefault();
                const id = e.dataTransfer?.getData('text/plain') || dragged;
                setDragged(null);
                if (id) move(id, position);
              }}
            >
              <span class="position" aria-hidden="true">
                {position + 1}
              </span>
              <SeverityBadge severity={finding.severity} />
              <a
                href={`/reports/${report.id}/findings/${finding.id}`}
                class="finding-title"
                onKeyDown={(e) => {
                  if (!editable || filtered || !e.altKey) return;
                  if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
                    e.preventDefault();
                    move(finding.id, position + (e.key === 'ArrowUp' ? -1 : 1));
                  }
                }}
              >
                {finding.title}
              </a>
              <span class="meta">
                {findingStatusLabel(finding.status)}
                {link?.retestStatus ? ` · ${retestStatusLabel(link.retestStatus)}` : ''}
                {finding.affectedAssets.length > 0
                  ? ` · ${t('{count} assets', { count: finding.affectedAssets.length })}`
                  : ''}
              </span>
              {editable && !filtered ? (
                <span class="move">
                  <button
                    type="button"
                    class="tool"
                    disabled={i === 0}
                    aria-label={t('Move {title} up', { title: finding.title })}
                    onClick={() => move(finding.id, position - 1)}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    class="tool"
                    disabled={i === shown.length - 1}
                    aria-label={t('Move {title} down', { title: finding.title })}
                    onClick={() => move(finding.id, position + 1)}
                  >
                    ↓
                  </button>
                </span>
              ) : null}
            </li>
          );
        })}
      </ol>
      {findings.length === 0 ? <p>{t('No findings yet.')}</p> : null}
      {filtered ? <p class="hint">{t('Clear the filters to reorder.')}</p> : null}
      <ImportDialog
        open={dialog === 'import'}
        report={report}
        onClose={() => setDialog(null)}
        onImported={() => props.onChanged()}
      />
      {dialog === 'library' ? (
        <LibraryPicker
          open
          report={report}
          onClose={() => setDialog(null)}
          onCreated={(id) => route(`/reports/${report.id}/findings/${id}`)}
        />
      ) : null}
    </section>
  );
}
