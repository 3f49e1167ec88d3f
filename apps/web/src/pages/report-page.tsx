import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, call, callAll } from '../api/api-client.ts';
import { ApiError } from '../api/api-error.ts';
import type { Client, Finding, Project, Report, ReportFinding, ReportTab } from '../api/api-types.ts';
import { t } from '../i18n/i18n.ts';
import { ExportBar } from '../report/export-bar.tsx';
import { FindingsPanel, type OrderedFinding } from '../report/findings-panel.tsx';
import { ReportSettings } from '../report/report-settings.tsx';
import { RetestPanel } from '../report/retest-panel.tsx';
import { saveReport } from '../report/save-report.ts';
import { TabEditor } from '../report/tab-editor.tsx';
import { canEdit } from '../session.ts';
import { useAutosave } from '../sync/use-autosave.ts';
import { useLiveRow } from '../sync/use-live-row.ts';
import { Breadcrumbs } from '../ui/breadcrumbs.tsx';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { NotFoundPage } from '../ui/not-found-page.tsx';
import { usePageTitle } from '../ui/use-resource.ts';
import { TrashButton } from './trash-button.tsx';

interface ReportData {
  report: Report;
  project: Project;
  client: Client;
  tabs: ReportTab[];
  findings: OrderedFinding[];
}

/** The findings of a report in its order: the report's attachments by position, each with its finding. */
export async function loadReportFindings(reportId: string): Promise<OrderedFinding[]> {
  const [links, findings] = await Promise.all([
    callAll((page) =>
      api.GET('/rest/v1/report-findings', { params: { query: { report_id: reportId, per_page: 100, page } } }),
    ),
    callAll((page) =>
      api.GET('/rest/v1/findings', { params: { query: { report_id: reportId, per_page: 100, page } } }),
    ),
  ]);
  const byFinding = new Map<string, ReportFinding>(links.map((l) => [l.findingId, l]));
  return findings
    .map((finding: Finding) => ({ finding, link: byFinding.get(finding.id) }))
    .sort((a, b) => (a.link?.position ?? 0) - (b.link?.position ?? 0));
}

async function loadReport(id: string): Promise<ReportData> {
  // Why all at once: the findings and tabs need only the report's id, not the report.
  const findingsLoad = loadReportFindings(id);
  const tabsLoad = callAll((page) =>
    api.GET('/rest/v1/report-tabs', { params: { query: { report_id: id, per_page: 100, page } } }),
  );
  findingsLoad.catch(() => undefined);
  tabsLoad.catch(() => undefined);
  const report = await call(api.GET('/rest/v1/reports/{id}', { params: { path: { id } } }));
  const [project, client, tabs, findings] = await Promise.all([
    call(api.GET('/rest/v1/projects/{id}', { params: { path: { id: report.projectId } } })),
    call(api.GET('/rest/v1/clients/{id}', { params: { path: { id: report.clientId } } })),
    tabsLoad,
    findingsLoad,
  ]);
  return { report, project, client, tabs: tabs.sort((a, b) => a.position - b.position), findings };
}

/** `/reports/{id}`: the report editor. Sections: findings, each tab in its order, settings, retests. */
export function ReportPage({ id, section }: { id: string; section?: string }) {
  const [data, setData] = useState<ReportData | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setData(null);
    loadReport(id).then(setData, setError);
  }, [id]);
  usePageTitle(data?.report.title ?? t('Report'));
  if (error instanceof ApiError && error.status === 404) return <NotFoundPage message={error.message} />;
  if (error) return <ErrorNotice error={error} />;
  if (!data)
    return (
      <p aria-busy="true" class="hint">
        {t('Loading the report…')}
      </p>
    );
  return <ReportEditor key={data.report.id} data={data} section={section ?? 'findings'} onData={setData} />;
}

function ReportEditor({ data, section, onData }: { data: ReportData; section: string; onData(d: ReportData): void }) {
  const { report, project, client, tabs, findings } = data;
  const save = useAutosave<Report>({
    draftKey: `report:${report.id}`,
    row: report,
    save: (changes, expected) => saveReport(report.id, changes, expected),
    fetchLatest: () => call(api.GET('/rest/v1/reports/{id}', { params: { path: { id: report.id } } })),
  });
  useLiveRow<Report>(`/rest/v1/reports/${report.id}`, save.receive);
  const refreshFindings = useCallback(async () => {
    const [latest, list] = await Promise.all([
      call(api.GET('/rest/v1/reports/{id}', { params: { path: { id: report.id } } })),
      loadReportFindings(report.id),
    ]);
    save.receive(latest);
    onData({ ...data, report: latest, findings: list });
  }, [data, onData, report.id, save]);
  const current = save.value;
  const sections = [
    { key: 'findings', label: t('Findings ({count})', { count: findings.length }) },
    ...tabs.map((tab) => ({ key: tab.id, label: tab.title })),
    { key: 'settings', label: t('Settings') },
    { key: 'retests', label: t('Retests') },
  ];
  const tab = tabs.find((x) => x.id === section);
  return (
    <article aria-labelledby="report-title" class="report">
      <Breadcrumbs
        items={[
          { label: t('Clients'), href: '/clients' },
          { label: client.name, href: `/clients/${client.id}` },
          { label: project.name, href: `/projects/${project.id}` },
          { label: current.title },
        ]}
      />
      <div class="page-head">
        <h1 id="report-title">{current.title}</h1>
        {current.kind === 'retest' ? <span class="badge">{t('Retest {round}', { round: current.round })}</span> : null}
        <span class="badge">{current.language}</span>
        {canEdit() ? (
          <TrashButton kind="report" id={report.id} name={current.title} after={`/projects/${project.id}`} />
        ) : null}
      </div>
      <ExportBar reportId={report.id} />
      <nav class="report-sections" aria-label={t('Sections of the report')}>
        {sections.map((s) => (
          <a
            key={s.key}
            href={s.key === 'findings' ? `/reports/${report.id}` : `/reports/${report.id}/${s.key}`}
            aria-current={s.key === section ? 'page' : undefined}
          >
            {s.label}
          </a>
        ))}
      </nav>
      {section === 'findings' ? (
        <FindingsPanel
          report={{ ...current, updatedAt: save.base.updatedAt }}
          findings={findings}
          onChanged={() => void refreshFindings()}
          onReordered={() => void refreshFindings()}
        />
      ) : section === 'settings' ? (
        <ReportSettings save={save} />
      ) : section === 'retests' ? (
        <RetestPanel report={current} findings={findings.map((f) => f.finding)} />
      ) : tab ? (
        <TabEditor key={tab.id} tab={tab} />
      ) : (
        <NotFoundPage />
      )}
    </article>
  );
}
