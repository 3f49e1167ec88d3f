import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call, callPage } from '../api/api-client.ts';
import { ApiError } from '../api/api-error.ts';
import { t } from '../i18n/i18n.ts';
import { canEdit } from '../session.ts';
import { Breadcrumbs } from '../ui/breadcrumbs.tsx';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { NotFoundPage } from '../ui/not-found-page.tsx';
import { usePageTitle, useResource } from '../ui/use-resource.ts';
import { ProjectTable } from './projects-page.tsx';
import { TrashButton } from './trash-button.tsx';

/** A client: its name, its projects and "new project". */
export function ClientPage({ id }: { id: string }) {
  const { route } = useLocation();
  const client = useResource(() => call(api.GET('/rest/v1/clients/{id}', { params: { path: { id } } })), [id]);
  const projects = useResource(
    () => callPage(api.GET('/rest/v1/projects', { params: { query: { client_id: id, per_page: 100 } } })),
    [id],
  );
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  usePageTitle(client.data?.name ?? t('Client'));
  if (client.error instanceof ApiError && client.error.status === 404)
    return <NotFoundPage message={client.error.message} />;
  if (!client.data) return <ErrorNotice error={client.error} />;
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const project = await call(api.POST('/rest/v1/projects', { body: { clientId: id, name: name.trim() } }));
      route(`/projects/${project.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="client-title">
      <Breadcrumbs items={[{ label: t('Clients'), href: '/clients' }, { label: client.data.name }]} />
      <div class="page-head">
        <h1 id="client-title">{client.data.name}</h1>
        {canEdit() ? <TrashButton kind="client" id={id} name={client.data.name} after="/clients" /> : null}
      </div>
      {client.data.description ? <p>{client.data.description}</p> : null}
      <h2>{t('Projects')}</h2>
      {canEdit() ? (
        <form class="inline-form" onSubmit={(e) => void create(e)}>
          <label class="field">
            <span>{t('New project’s name')}</span>
            <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit" class="button">
            {t('Create project')}
          </button>
        </form>
      ) : null}
      <ErrorNotice error={error ?? projects.error} />
      {projects.data ? <ProjectTable rows={projects.data.rows} /> : null}
    </section>
  );
}
