import { api, callPage } from '../api/api-client.ts';
import type { Report } from '../api/api-types.ts';
import { formatTime, t } from '../i18n/i18n.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { FilterSelect, Pager, SearchBox } from '../ui/list-controls.tsx';
import { setOnly, useListQuery } from '../ui/use-list-query.ts';
import { usePageTitle, useResource } from '../ui/use-resource.ts';

export const REPORT_STATUSES = ['draft', 'review', 'final'] as const;

export function reportStatusLabel(status: Report['status']): string {
  return t({ draft: 'Draft', review: 'In review', final: 'Final' }[status]);
}

/** Every report the user may see, newest first, with search and the API's filters. */
export function ReportsPage() {
  usePageTitle(t('Reports'));
  const list = useListQuery(['status', 'kind'] as const);
  const reports = useResource(
    () =>
      callPage(
        api.GET('/rest/v1/reports', {
          params: {
            query: {
              page: list.page,
              per_page: 25,
              ...(list.q ? { q: list.q } : {}),
              ...(setOnly(list.filters) as { status?: Report['status']; kind?: Report['kind'] }),
            },
          },
        }),
      ),
    [list.page, list.q, list.filters.status, list.filters.kind],
  );
  return (
    <section aria-labelledby="reports-title">
      <h1 id="reports-title">{t('Reports')}</h1>
      <p class="hint">{t('New reports are created on their project’s page.')}</p>
      <div class="toolbar">
        <SearchBox label={t('Search reports')} value={list.q} onSearch={list.setQ} />
        <FilterSelect
          label={t('Status')}
          value={list.filters.status}
          onChange={(v) => list.setFilter('status', v)}
          choices={REPORT_STATUSES.map((s) => ({ value: s, label: reportStatusLabel(s) }))}
        />
        <FilterSelect
          label={t('Kind')}
          value={list.filters.kind}
          onChange={(v) => list.setFilter('kind', v)}
          choices={[
            { value: 'report', label: t('Report') },
            { value: 'retest', label: t('Retest') },
          ]}
        />
      </div>
      <ErrorNotice error={reports.error} />
      {reports.data ? (
        <>
          <table class="table">
            <caption class="visually-hidden">{t('Reports')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('Title')}</th>
                <th scope="col">{t('Status')}</th>
                <th scope="col">{t('Kind')}</th>
                <th scope="col">{t('Language')}</th>
                <th scope="col">{t('Changed')}</th>
              </tr>
            </thead>
            <tbody>
              {reports.data.rows.map((r) => (
                <tr key={r.id}>
                  <td>
                    <a href={`/reports/${r.id}`}>{r.title}</a>
                  </td>
                  <td>{reportStatusLabel(r.status)}</td>
                  <td>{r.kind === 'retest' ? t('Retest {round}', { round: r.round }) : t('Report')}</td>
                  <td>{r.language}</td>
                  <td>{formatTime(r.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {reports.data.rows.length === 0 ? <p>{t('No reports match.')}</p> : null}
          <Pager page={list.page} pages={reports.data.pages} total={reports.data.total} onPage={list.setPage} />
        </>
      ) : reports.loading ? (
        <p aria-busy="true">{t('Loading…')}</p>
      ) : null}
    </section>
  );
}
