import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call, callPage } from '../api/api-client.ts';
import { formatTime, t } from '../i18n/i18n.ts';
import { canEdit } from '../session.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { Pager, SearchBox } from '../ui/list-controls.tsx';
import { useListQuery } from '../ui/use-list-query.ts';
import { usePageTitle, useResource } from '../ui/use-resource.ts';

/** The clients, with search, paging and "new client". */
export function ClientsPage() {
  usePageTitle(t('Clients'));
  const list = useListQuery([] as const);
  const { route } = useLocation();
  const clients = useResource(
    () =>
      callPage(
        api.GET('/rest/v1/clients', {
          params: { query: { page: list.page, per_page: 25, ...(list.q ? { q: list.q } : {}) } },
        }),
      ),
    [list.page, list.q],
  );
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const client = await call(api.POST('/rest/v1/clients', { body: { name: name.trim() } }));
      route(`/clients/${client.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="clients-title">
      <h1 id="clients-title">{t('Clients')}</h1>
      {canEdit() ? (
        <form class="inline-form" onSubmit={(e) => void create(e)}>
          <label class="field">
            <span>{t('New client’s name')}</span>
            <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit" class="button">
            {t('Create client')}
          </button>
        </form>
      ) : null}
      <ErrorNotice error={error} />
      <div class="toolbar">
        <SearchBox label={t('Search clients')} value={list.q} onSearch={list.setQ} />
      </div>
      <ErrorNotice error={clients.error} />
      {clients.data ? (
        <>
          <table class="table">
            <caption class="visually-hidden">{t('Clients')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('Name')}</th>
                <th scope="col">{t('Changed')}</th>
              </tr>
            </thead>
            <tbody>
              {clients.data.rows.map((c) => (
                <tr key={c.id}>
                  <td>
                    <a href={`/clients/${c.id}`}>{c.name}</a>
                  </td>
                  <td>{formatTime(c.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {clients.data.rows.length === 0 ? <p>{t('No clients match.')}</p> : null}
          <Pager page={list.page} pages={clients.data.pages} total={clients.data.total} onPage={list.setPage} />
        </>
      ) : null}
    </section>
  );
}
