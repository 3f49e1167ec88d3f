import { api, callPage } from '../api/api-client.ts';
import type { Project } from '../api/api-types.ts';
import { formatTime, t } from '../i18n/i18n.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { FilterSelect, Pager, SearchBox } from '../ui/list-controls.tsx';
import { setOnly, useListQuery } from '../ui/use-list-query.ts';
import { usePageTitle, useResource } from '../ui/use-resource.ts';

const PROJECT_STATUSES = ['planned', 'active', 'completed', 'archived'] as const;

export function projectStatusLabel(status: Project['status']): string {
  return t({ planned: 'Planned', active: 'Active', completed: 'Completed', archived: 'Archived' }[status]);
}

export function ProjectTable({ rows }: { rows: Project[] }) {
  if (rows.length === 0) return <p>{t('No projects match.')}</p>;
  return (
    <table class="table">
      <caption class="visually-hidden">{t('Projects')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('Name')}</th>
          <th scope="col">{t('Status')}</th>
          <th scope="col">{t('Changed')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((p) => (
          <tr key={p.id}>
            <td>
              <a href={`/projects/${p.id}`}>{p.name}</a>
            </td>
            <td>{projectStatusLabel(p.status)}</td>
            <td>{formatTime(p.updatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ProjectsPage() {
  usePageTitle(t('Projects'));
  const list = useListQuery(['status'] as const);
  const projects = useResource(
    () =>
      callPage(
        api.GET('/rest/v1/projects', {
          params: {
            query: {
              page: list.page,
              per_page: 25,
              ...(list.q ? { q: list.q } : {}),
              ...(setOnly(list.filters) as { status?: Project['status'] }),
            },
          },
        }),
      ),
    [list.page, list.q, list.filters.status],
  );
  return (
    <section aria-labelledby="projects-title">
      <h1 id="projects-title">{t('Projects')}</h1>
      <p class="hint">{t('New projects are created on their client’s page.')}</p>
      <div class="toolbar">
        <SearchBox label={t('Search projects')} value={list.q} onSearch={list.setQ} />
        <FilterSelect
          label={t('Status')}
          value={list.filters.status}
          onChange={(v) => list.setFilter('status', v)}
          choices={PROJECT_STATUSES.map((s) => ({ value: s, label: projectStatusLabel(s) }))}
        />
      </div>
      <ErrorNotice error={projects.error} />
      {projects.data ? (
        <>
          <ProjectTable rows={projects.data.rows} />
          <Pager page={list.page} pages={projects.data.pages} total={projects.data.total} onPage={list.setPage} />
        </>
      ) : null}
    </section>
  );
}
