import { useState } from 'preact/hooks';
import { FINDING_CONTENT_FIELD_NAMES } from '@service/report-model';
import { api, call, callPage } from '../api/api-client.ts';
import type { FindingTemplate, Report } from '../api/api-types.ts';
import { MarkdownPreview } from '../editor/markdown-preview.tsx';
import { t } from '../i18n/i18n.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { SearchBox } from '../ui/list-controls.tsx';
import { ModalDialog } from '../ui/modal-dialog.tsx';
import { SeverityBadge } from '../ui/severity-badge.tsx';
import { useResource } from '../ui/use-resource.ts';

/** The create body of a finding that takes a template's content (every content field report-model declares). */
export function findingFromTemplate(template: FindingTemplate, reportId: string) {
  const content = Object.fromEntries(
    FINDING_CONTENT_FIELD_NAMES.map((name) => [name, (template as unknown as Record<string, unknown>)[name]]),
  );
  return {
    ...content,
    reportId,
    source: {
      kind: 'template' as const,
      templateId: template.id,
      ...(template.globalKey ? { templateKey: template.globalKey } : {}),
    },
  };
}

/** "New from library": search the finding library in the report's language, preview, create. */
export function LibraryPicker(props: { open: boolean; report: Report; onClose(): void; onCreated(id: string): void }) {
  const [q, setQ] = useState('');
  const [chosen, setChosen] = useState<FindingTemplate | null>(null);
  const [error, setError] = useState<unknown>(null);
  const language = props.report.language;
  const templates = useResource(
    async () =>
      props.open
        ? callPage(
            api.GET('/rest/v1/finding-library', {
              params: { query: { per_page: 25, language, ...(q ? { q } : {}) } },
            }),
          )
        : null,
    [props.open, q, language],
  );
  const create = async () => {
    if (!chosen) return;
    try {
      const finding = await call(
        api.POST('/rest/v1/findings', { body: findingFromTemplate(chosen, props.report.id) as never }),
      );
      props.onClose();
      props.onCreated(finding.id);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <ModalDialog title={t('New finding from the library')} open={props.open} onClose={props.onClose} wide>
      <p class="hint">{t('Templates in the report’s language ({language}).', { language })}</p>
      <SearchBox label={t('Search the finding library')} value={q} onSearch={setQ} />
      <div class="picker">
        <ul class="picker-list" aria-label={t('Finding templates')} tabIndex={-1}>
          {(templates.data?.rows ?? []).map((tpl) => (
            <li key={tpl.id}>
              <button
                type="button"
                class={chosen?.id === tpl.id ? 'pick chosen' : 'pick'}
                aria-pressed={chosen?.id === tpl.id}
                onClick={() => setChosen(tpl)}
              >
                <SeverityBadge severity={tpl.severity} /> {tpl.title}
              </button>
            </li>
          ))}
          {templates.data && templates.data.rows.length === 0 ? <li>{t('No templates match.')}</li> : null}
        </ul>
        <section
          class="picker-preview document"
          aria-label={t('Template preview')}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
          tabIndex={0}
        >
          {chosen ? (
            <>
              <h3>{chosen.title}</h3>
              <MarkdownPreview markdown={chosen.description} evidence={[]} />
              <h4>{t('Remediation')}</h4>
              <MarkdownPreview markdown={chosen.remediation} evidence={[]} />
            </>
          ) : (
            <p class="hint">{t('Choose a template to preview it.')}</p>
          )}
        </section>
      </div>
      <ErrorNotice error={error} />
      <div class="actions">
        <button type="button" class="button" disabled={!chosen} onClick={() => void create()}>
          {t('Create the finding')}
        </button>
      </div>
    </ModalDialog>
  );
}
