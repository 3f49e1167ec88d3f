import { FINDING_MARKDOWN_FIELDS, severityDisagreement } from '@service/report-model';
import { useEffect, useState } from 'preact/hooks';
import { api, call, callAll } from '../api/api-client.ts';
import { ApiError } from '../api/api-error.ts';
import type { EvidenceImage, Finding, Report } from '../api/api-types.ts';
import { MarkdownEditor } from '../editor/markdown-editor.tsx';
import { AssetsTable } from '../finding/assets-table.tsx';
import { CvssCalculators } from '../finding/cvss-calculator.tsx';
import { EvidenceGallery } from '../finding/evidence-gallery.tsx';
import { ListField } from '../finding/list-field.tsx';
import { t } from '../i18n/i18n.ts';
import { uploadEvidence } from '../report/evidence-upload.ts';
import { FINDING_STATUSES, findingStatusLabel } from '../report/findings-panel.tsx';
import { canEdit } from '../session.ts';
import { ConflictDialog } from '../sync/conflict-dialog.tsx';
import { useAutosave } from '../sync/use-autosave.ts';
import { useLiveRow } from '../sync/use-live-row.ts';
import { Breadcrumbs } from '../ui/breadcrumbs.tsx';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { NotFoundPage } from '../ui/not-found-page.tsx';
import { SaveIndicator } from '../ui/save-indicator.tsx';
import { SEVERITY_ORDER, severityLabel } from '../ui/severity-badge.tsx';
import { usePageTitle } from '../ui/use-resource.ts';

type Editable = Omit<Finding, 'reportIds' | 'source' | 'projectId' | 'createdAt'>;

/** What a save sends: the fields that changed (a PATCH leaves the others as they are). */
function patchOf(changes: Partial<Finding>) {
  const { id: _id, updatedAt: _u, createdAt: _c, reportIds: _r, projectId: _p, source: _s, ...rest } = changes;
  return rest;
}

export const FINDING_LABELS: Record<string, string> = {
  title: 'Title',
  severity: 'Severity',
  status: 'Status',
  cvss: 'CVSS',
  severityReason: 'Severity reason',
  cves: 'CVEs',
  cwes: 'CWEs',
  affectedAssets: 'Affected assets',
  references: 'References',
  ...Object.fromEntries(FINDING_MARKDOWN_FIELDS.map((f) => [f.name, f.label])),
};

/** `/reports/{id}/findings/{findingId}`: the finding editor, saved as you type. */
export function FindingPage({ reportId, findingId }: { reportId: string; findingId: string }) {
  const [data, setData] = useState<{ finding: Finding; report: Report; evidence: EvidenceImage[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    Promise.all([
      call(api.GET('/rest/v1/findings/{id}', { params: { path: { id: findingId } } })),
      call(api.GET('/rest/v1/reports/{id}', { params: { path: { id: reportId } } })),
      callAll((page) =>
        api.GET('/rest/v1/evidence-images', { params: { query: { finding_id: findingId, per_page: 100, page } } }),
      ),
    ]).then(([finding, report, evidence]) => setData({ finding, report, evidence }), setError);
  }, [reportId, findingId]);
  usePageTitle(data?.finding.title ?? t('Finding'));
  if (error instanceof ApiError && error.status === 404) return <NotFoundPage message={error.message} />;
  if (error) return <ErrorNotice error={error} />;
  if (!data) return <p class="hint">{t('Loading the finding…')}</p>;
  return <FindingEditor key={data.finding.id} {...data} />;
}

function FindingEditor(props: { finding: Finding; report: Report; evidence: EvidenceImage[] }) {
  const { report } = props;
  const editable = canEdit();
  const [evidence, setEvidence] = useState(props.evidence);
  const save = useAutosave<Finding>({
    draftKey: `finding:${props.finding.id}`,
    row: props.finding,
    save: (changes, expectedUpdatedAt) =>
      call(
        api.PATCH('/rest/v1/findings/{id}', {
          params: { path: { id: props.finding.id } },
          body: { ...patchOf(changes), expectedUpdatedAt } as never,
        }),
      ),
    fetchLatest: () => call(api.GET('/rest/v1/findings/{id}', { params: { path: { id: props.finding.id } } })),
  });
  useLiveRow<Finding>(`/rest/v1/findings/${props.finding.id}`, save.receive);
  const f = save.value;
  const change = <K extends keyof Editable>(field: K, value: Finding[K]) => save.change(field, value);
  const band = severityDisagreement({ severity: f.severity, cvss: f.cvss });
  const onImages = async (files: File[]) => {
    const uploaded = await uploadEvidence({ findingId: f.id }, files);
    setEvidence((list) => [...list, ...uploaded.images]);
    return uploaded.references;
  };
  const labels = Object.fromEntries(Object.entries(FINDING_LABELS).map(([k, v]) => [k, t(v)]));
  return (
    <article aria-labelledby="finding-title" class="finding-editor">
      <Breadcrumbs
        items={[
          { label: t('Reports'), href: '/reports' },
          { label: report.title, href: `/reports/${report.id}` },
          { label: f.title },
        ]}
      />
      <div class="page-head">
        <h1 id="finding-title">{f.title}</h1>
        <SaveIndicator state={save.state} error={save.error} />
      </div>
      <ConflictDialog save={save} labels={labels} />
      <div class="grid-form">
        <label class="field wide">
          <span>{t('Title')}</span>
          <input
            value={f.title}
            disabled={!editable}
            maxLength={300}
            onInput={(e) => change('title', e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>{t('Severity')}</span>
          <select
            value={f.severity}
            disabled={!editable}
            onChange={(e) => change('severity', e.currentTarget.value as Finding['severity'])}
          >
            {SEVERITY_ORDER.map((s) => (
              <option key={s} value={s}>
                {severityLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>{t('Status')}</span>
          <select
            value={f.status}
            disabled={!editable}
            onChange={(e) => change('status', e.currentTarget.value as Finding['status'])}
          >
            {FINDING_STATUSES.map((s) => (
              <option key={s} value={s}>
                {findingStatusLabel(s)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <CvssCalculators cvss={f.cvss} readOnly={!editable} onChange={(cvss) => change('cvss', cvss)} />
      {band || f.severityReason ? (
        <label class="field wide">
          <span>{t('Severity reason')}</span>
          <textarea
            rows={2}
            value={f.severityReason}
            disabled={!editable}
            required={band !== null}
            aria-invalid={band !== null && f.severityReason.trim() === ''}
            onInput={(e) => change('severityReason', e.currentTarget.value)}
          />
          {band ? (
            <span class="hint" role="note">
              {t('The CVSS {version} score {score} is {band}, but the severity is {severity}: say why.', {
                version: band.version,
                score: band.baseScore.toFixed(1),
                band: severityLabel(band.band),
                severity: severityLabel(f.severity),
              })}
            </span>
          ) : null}
        </label>
      ) : null}
      {FINDING_MARKDOWN_FIELDS.map((field) => (
        <MarkdownEditor
          key={field.name}
          label={t(field.label)}
          value={f[field.name]}
          readOnly={!editable}
          evidence={evidence}
          onChange={(text) => change(field.name, text)}
          onImages={editable ? onImages : undefined}
          onSave={() => void save.flush()}
          revision={save.revision}
          rows={6}
        />
      ))}
      <AssetsTable assets={f.affectedAssets} readOnly={!editable} onChange={(a) => change('affectedAssets', a)} />
      <div class="grid-form">
        <ListField
          label={t('CVEs')}
          hint={t('One per line: CVE-2021-44228')}
          values={f.cves}
          readOnly={!editable}
          parse={(l) => (/^CVE-\d{4}-\d{4,}$/i.test(l) ? l.toUpperCase() : null)}
          onChange={(v) => change('cves', v)}
        />
        <ListField
          label={t('CWEs')}
          hint={t('One number per line: 79')}
          values={f.cwes}
          readOnly={!editable}
          parse={(l) => {
            const n = Number.parseInt(l.replace(/^CWE-/i, ''), 10);
            return Number.isFinite(n) && n > 0 ? n : null;
          }}
          onChange={(v) => change('cwes', v)}
        />
        <ListField
          label={t('References')}
          hint={t('One link per line')}
          values={f.references}
          readOnly={!editable}
          parse={(l) => l}
          onChange={(v) => change('references', v)}
        />
      </div>
      <EvidenceGallery findingId={f.id} images={evidence} readOnly={!editable} onChange={setEvidence} />
    </article>
  );
}
