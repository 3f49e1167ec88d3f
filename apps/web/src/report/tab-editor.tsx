import { useMemo, useState } from 'preact/hooks';
import { api, call, callAll } from '../api/api-client.ts';
import type { EvidenceImage, ReportTab } from '../api/api-types.ts';
import { MarkdownEditor } from '../editor/markdown-editor.tsx';
import { t } from '../i18n/i18n.ts';
import { canEdit } from '../session.ts';
import { ConflictDialog } from '../sync/conflict-dialog.tsx';
import { useAutosave } from '../sync/use-autosave.ts';
import { useLiveRow } from '../sync/use-live-row.ts';
import { SaveIndicator } from '../ui/save-indicator.tsx';
import { useResource } from '../ui/use-resource.ts';
import { uploadEvidence } from './evidence-upload.ts';

/** One tab of the report: its title and Markdown, saved as you type, with pasted images as evidence. */
export function TabEditor({ tab }: { tab: ReportTab }) {
  const editable = canEdit();
  const save = useAutosave<ReportTab>({
    draftKey: `report-tab:${tab.id}`,
    row: tab,
    save: (changes, expectedUpdatedAt) =>
      call(
        api.PATCH('/rest/v1/report-tabs/{id}', {
          params: { path: { id: tab.id } },
          body: { title: changes.title, content: changes.content, expectedUpdatedAt },
        }),
      ),
    fetchLatest: () => call(api.GET('/rest/v1/report-tabs/{id}', { params: { path: { id: tab.id } } })),
  });
  useLiveRow<ReportTab>(`/rest/v1/report-tabs/${tab.id}`, save.receive);
  const evidence = useResource(
    () =>
      callAll((page) =>
        api.GET('/rest/v1/evidence-images', { params: { query: { report_tab_id: tab.id, per_page: 100, page } } }),
      ),
    [tab.id],
  );
  const [added, setAdded] = useState<EvidenceImage[]>([]);
  const images = useMemo(() => [...(evidence.data ?? []), ...added], [evidence.data, added]);
  const onImages = async (files: File[]) => {
    const uploaded = await uploadEvidence({ reportTabId: tab.id }, files);
    setAdded((list) => [...list, ...uploaded.images]);
    return uploaded.references;
  };
  return (
    <section aria-labelledby={`tab-${tab.id}`} class="tab-editor">
      <div class="section-head">
        <h2 id={`tab-${tab.id}`}>{save.value.title}</h2>
        <SaveIndicator state={save.state} error={save.error} />
      </div>
      <ConflictDialog save={save} labels={{ title: t('Title'), content: t('Text') }} />
      {editable ? (
        <label class="field">
          <span>{t('Tab title')}</span>
          <input
            value={save.value.title}
            maxLength={300}
            onInput={(e) => save.change('title', e.currentTarget.value)}
          />
        </label>
      ) : null}
      <MarkdownEditor
        label={save.value.title}
        value={save.value.content}
        readOnly={!editable}
        evidence={images}
        onChange={(text) => save.change('content', text)}
        onImages={editable ? onImages : undefined}
        onSave={() => void save.flush()}
        revision={save.revision}
        rows={18}
      />
    </section>
  );
}
