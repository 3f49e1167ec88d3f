import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call, callPage } from '../api/api-client.ts';
import { ApiError } from '../api/api-error.ts';
import { formatTime, t } from '../i18n/i18n.ts';
import { canEdit } from '../session.ts';
import { Breadcrumbs } from '../ui/breadcrumbs.tsx';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { NotFoundPage } from '../ui/not-found-page.tsx';
import { usePageTitle, useResource } from '../ui/use-resource.ts';
import { projectStatusLabel } from './projects-page.tsx';
import { reportStatusLabel } from './reports-page.tsx';
import { TrashButton } from './trash-button.tsx';

/** A project: its reports, "new report" (from a report template, in a language) and Markdown import. */
export function ProjectPage({ id }: { id: string }) {
  const project = useResource(() => call(api.GET('/rest/v1/projects/{id}', { params: { path: { id } } })), [id]);
  const client = useResource(
    async () =>
      project.data ? call(api.GET('/rest/v1/clients/{id}', { params: { path: { id: project.data.clientId } } })) : null,
    [project.data?.clientId],
  );
  const reports = useResource(
    () => callPage(api.GET('/rest/v1/reports', { params: { query: { project_id: id, per_page: 100 } } })),
    [id],
  );
  usePageTitle(project.data?.name ?? t('Project'));
  if (project.error instanceof ApiError && project.error.status === 404)
    return <NotFoundPage message={project.error.message} />;
  if (!project.data) return <ErrorNotice error={project.error} />;
  return (
    <section aria-labelledby="project-title">
      <Breadcrumbs
        items={[
          { label: t('Clients'), href: '/clients' },
          { label: client.data?.name ?? '…', href: `/clients/${project.data.clientId}` },
          { label: project.data.name },
        ]}
      />
      <div class="page-head">
        <h1 id="project-title">{project.data.name}</h1>
        <span class="badge">{projectStatusLabel(project.data.status)}</span>
        {canEdit() ? (
          <TrashButton kind="project" id={id} name={project.data.name} after={`/clients/${project.data.clientId}`} />
        ) : null}
      </div>
      {canEdit() ? (
        <div class="columns">
          <NewReportForm projectId={id} />
          <MarkdownImportForm projectId={id} />
        </div>
      ) : null}
      <h2>{t('Reports')}</h2>
      <ErrorNotice error={reports.error} />
      {reports.data ? (
        reports.data.rows.length === 0 ? (
          <p>{t('No reports yet.')}</p>
        ) : (
          <table class="table">
            <caption class="visually-hidden">{t('Reports')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('Title')}</th>
                <th scope="col">{t('Status')}</th>
                <th scope="col">{t('Language')}</th>
                <th scope="col">{t('Changed')}</th>
              </tr>
            </thead>
            <tbody>
              {reports.data.rows.map((r) => (
                <tr key={r.id}>
                  <td>
                    <a href={`/reports/${r.id}`}>{r.title}</a>
                    {r.kind === 'retest' ? ` (${t('Retest {round}', { round: r.round })})` : ''}
                  </td>
                  <td>{reportStatusLabel(r.status)}</td>
                  <td>{r.language}</td>
                  <td>{formatTime(r.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
    </section>
  );
}

function NewReportForm({ projectId }: { projectId: string }) {
  const { route } = useLocation();
  const [title, setTitle] = useState('');
  const [language, setLanguage] = useState('en');
  const [templateId, setTemplateId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const templates = useResource(
    () => callPage(api.GET('/rest/v1/report-templates', { params: { query: { per_page: 100 } } })),
    [],
  );
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const report = await call(
        api.POST('/rest/v1/reports', {
          body: { projectId, title: title.trim(), language, ...(templateId ? { templateId } : {}) },
        }),
      );
      route(`/reports/${report.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card" onSubmit={(e) => void create(e)} aria-labelledby="new-report-title">
      <h2 id="new-report-title">{t('New report')}</h2>
      <label class="field">
        <span>{t('Title')}</span>
        <input required maxLength={300} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>{t('Report language')}</span>
        <select value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
          <option value="en">English</option>
          <option value="de">Deutsch</option>
        </select>
      </label>
      <label class="field">
        <span>{t('Report template')}</span>
        <select value={templateId} onChange={(e) => setTemplateId(e.currentTarget.value)}>
          <option value="">{t('None (empty report)')}</option>
          {(templates.data?.rows ?? []).map((tpl) => (
            <option key={tpl.id} value={tpl.id}>
              {tpl.name}
            </option>
          ))}
        </select>
      </label>
      <ErrorNotice error={error} />
      <button type="submit" class="button">
        {t('Create report')}
      </button>
    </form>
  );
}

/** A Markdown file in the format of the Markdown export becomes a new report of this project. */
function MarkdownImportForm({ projectId }: { projectId: string }) {
  const { route } = useLocation();
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const result = await call(api.POST('/rest/v1/reports/import-markdown-file', { body: { file, projectId } }));
      route(`/reports/${result.reportId}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="md-import-title">
      <h2 id="md-import-title">{t('Import a Markdown report')}</h2>
      <p class="hint">{t('A file in the format of the Markdown export becomes a new report here.')}</p>
      <label class="field">
        <span>{t('Markdown file')}</span>
        <input
          type="file"
          accept=".md,text/markdown,text/plain"
          onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
        />
      </label>
      <ErrorNotice error={error} />
      <button type="submit" class="button" disabled={!file || busy} aria-busy={busy}>
        {busy ? t('Importing…') : t('Import')}
      </button>
    </form>
  );
}
