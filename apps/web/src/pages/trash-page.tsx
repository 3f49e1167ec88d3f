import { useState } from 'preact/hooks';
import { api, call, callPage } from '../api/api-client.ts';
import type { TrashItem } from '../api/api-types.ts';
import { formatTime, t } from '../i18n/i18n.ts';
import { isAdmin } from '../session.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { FilterSelect, Pager } from '../ui/list-controls.tsx';
import { NotFoundPage } from '../ui/not-found-page.tsx';
import { setOnly, useListQuery } from '../ui/use-list-query.ts';
import { usePageTitle, useResource } from '../ui/use-resource.ts';

const KIND_LABEL = { client: 'Client', project: 'Project', report: 'Report' } as const;
const RESTORE_PATH = {
  client: '/rest/v1/clients/{id}/restore',
  project: '/rest/v1/projects/{id}/restore',
  report: '/rest/v1/reports/{id}/restore',
} as const;

/** The workspace trash, for administrators: what was deleted, by whom and when, and restore. */
export function TrashPage() {
  usePageTitle(t('Trash'));
  const list = useListQuery(['type'] as const);
  const [error, setError] = useState<unknown>(null);
  const [restored, setRestored] = useState<string | null>(null);
  const trash = useResource(
    () =>
      callPage(
        api.GET('/rest/v1/trash', {
          params: {
            query: { page: list.page, per_page: 25, ...(setOnly(list.filters) as { type?: TrashItem['type'] }) },
          },
        }),
      ),
    [list.page, list.filters.type, restored],
  );
  if (!isAdmin()) return <NotFoundPage />;
  const restore = async (item: TrashItem) => {
    try {
      await call(api.POST(RESTORE_PATH[item.type], { params: { path: { id: item.id } } }));
      setRestored(item.id);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="trash-title">
      <h1 id="trash-title">{t('Trash')}</h1>
      <div class="toolbar">
        <FilterSelect
          label={t('Kind')}
          value={list.filters.type}
          onChange={(v) => list.setFilter('type', v)}
          choices={(['client', 'project', 'report'] as const).map((k) => ({ value: k, label: t(KIND_LABEL[k]) }))}
        />
      </div>
      {restored ? (
        <p class="notice" role="status">
          {t('Restored.')}
        </p>
      ) : null}
      <ErrorNotice error={error ?? trash.error} />
      {trash.data ? (
        <>
          <table class="table">
            <caption class="visually-hidden">{t('Trash')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('Name')}</th>
                <th scope="col">{t('Kind')}</th>
                <th scope="col">{t('Deleted')}</th>
                <th scope="col">{t('Actions')}</th>
              </tr>
            </thead>
            <tbody>
              {trash.data.rows.map((item) => (
                <tr key={item.id}>
                  <td>{item.name}</td>
                  <td>{t(KIND_LABEL[item.type])}</td>
                  <td>{formatTime(item.deletedAt)}</td>
                  <td>
                    <button type="button" class="button secondary" onClick={() => void restore(item)}>
                      {t('Restore {name}', { name: item.name })}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {trash.data.rows.length === 0 ? <p>{t('The trash is empty.')}</p> : null}
          <Pager page={list.page} pages={trash.data.pages} total={trash.data.total} onPage={list.setPage} />
        </>
      ) : null}
    </section>
  );
}
