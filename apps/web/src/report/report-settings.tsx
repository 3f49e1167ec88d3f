import { api, callPage } from '../api/api-client.ts';
import type { Report } from '../api/api-types.ts';
import { MarkdownEditor } from '../editor/markdown-editor.tsx';
import { t } from '../i18n/i18n.ts';
import { REPORT_STATUSES, reportStatusLabel } from '../pages/reports-page.tsx';
import { canEdit } from '../session.ts';
import { ConflictDialog } from '../sync/conflict-dialog.tsx';
import type { Autosave } from '../sync/use-autosave.ts';
import { SaveIndicator } from '../ui/save-indicator.tsx';
import { useResource } from '../ui/use-resource.ts';

export const REPORT_FIELD_LABELS: Partial<Record<keyof Report, string>> = {
  title: 'Title',
  status: 'Status',
  language: 'Report language',
  findingOrder: 'Finding order',
  styleId: 'Style',
  summary: 'Summary',
};

/** The report's own fields, edited in place and saved as you go. */
export function ReportSettings({ save }: { save: Autosave<Report> }) {
  const report = save.value;
  const editable = canEdit();
  const styles = useResource(
    () => callPage(api.GET('/rest/v1/style-library', { params: { query: { per_page: 100 } } })),
    [],
  );
  const labels = Object.fromEntries(Object.entries(REPORT_FIELD_LABELS).map(([k, v]) => [k, t(v)]));
  return (
    <section aria-labelledby="settings-title" class="settings">
      <div class="section-head">
        <h2 id="settings-title">{t('Report settings')}</h2>
        <SaveIndicator state={save.state} error={save.error} />
      </div>
      <ConflictDialog save={save} labels={labels} />
      <div class="grid-form">
        <label class="field">
          <span>{t('Title')}</span>
          <input
            value={report.title}
            disabled={!editable}
            maxLength={300}
            onInput={(e) => save.change('title', e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>{t('Status')}</span>
          <select
            value={report.status}
            disabled={!editable}
            onChange={(e) => save.change('status', e.currentTarget.value as Report['status'])}
          >
            {REPORT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {reportStatusLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>{t('Report language')}</span>
          <select
            value={report.language}
            disabled={!editable}
            onChange={(e) => save.change('language', e.currentTarget.value)}
          >
            <option value="en">English</option>
            <option value="de">Deutsch</option>
            {report.language !== 'en' && report.language !== 'de' ? (
              <option value={report.language}>{report.language}</option>
            ) : null}
          </select>
        </label>
        <label class="field">
          <span>{t('Finding order')}</span>
          <select
            value={report.findingOrder}
            disabled={!editable}
            onChange={(e) => save.change('findingOrder', e.currentTarget.value as Report['findingOrder'])}
          >
            <option value="severity">{t('By severity, worst first')}</option>
            <option value="manual">{t('As arranged by hand')}</option>
          </select>
        </label>
        <label class="field">
          <span>{t('Style')}</span>
          <select
            value={report.styleId ?? ''}
            disabled={!editable}
            onChange={(e) => save.change('styleId', e.currentTarget.value || null)}
          >
            <option value="">{t('The workspace default')}</option>
            {(styles.data?.rows ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <MarkdownEditor
        label={t('Summary')}
        value={report.summary}
        readOnly={!editable}
        evidence={[]}
        onChange={(text) => save.change('summary', text)}
        onSave={() => void save.flush()}
        revision={save.revision}
        rows={6}
      />
    </section>
  );
}
