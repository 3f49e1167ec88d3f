import { FINDING_CONTENT_FIELD_NAMES } from '@service/report-model';
import { useState } from 'preact/hooks';
import { api, call, callPage } from '../api/api-client.ts';
import type { FindingTemplate } from '../api/api-types.ts';
import { MarkdownPreview } from '../editor/markdown-preview.tsx';
import { t } from '../i18n/i18n.ts';
import { isAdmin } from '../session.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { FilterSelect, Pager, SearchBox } from '../ui/list-controls.tsx';
import { SeverityBadge, SEVERITY_ORDER, severityLabel } from '../ui/severity-badge.tsx';
import { setOnly, useListQuery } from '../ui/use-list-query.ts';
import { usePageTitle, useResource } from '../ui/use-resource.ts';

const KINDS = [
  { key: 'findings', label: 'Finding templates' },
  { key: 'reports', label: 'Report templates' },
  { key: 'styles', label: 'Styles' },
] as const;

/** A template's content as the body of a new workspace item (a copy of a global one). */
function copyOf(template: FindingTemplate) {
  return {
    ...Object.fromEntries(
      FINDING_CONTENT_FIELD_NAMES.map((name) => [name, (template as unknown as Record<string, unknown>)[name]]),
    ),
    scannerRules: template.scannerRules,
    translations: template.translations,
  };
}

function TemplateDetail({ template, onSaved }: { template: FindingTemplate; onSaved(t: FindingTemplate): void }) {
  const own = template.globalKey === null;
  const editable = own && isAdmin();
  const [draft, setDraft] = useState({
    title: template.title,
    severity: template.severity,
    description: template.description,
    remediation: template.remediation,
  });
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState<string | null>(null);
  const saveOwn = async (e: Event) => {
    e.preventDefault();
    try {
      onSaved(
        await call(api.PATCH('/rest/v1/finding-library/{id}', { params: { path: { id: template.id } }, body: draft })),
      );
      setMessage(t('Saved.'));
    } catch (err) {
      setError(err);
    }
  };
  const copy = async () => {
    try {
      const created = await call(api.POST('/rest/v1/finding-library', { body: copyOf(template) as never }));
      onSaved(created);
      setMessage(t('Copied to the workspace: “{title}”.', { title: created.title }));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="document card" aria-label={t('Template')}>
      <h2>
        <SeverityBadge severity={template.severity} /> {template.title}
      </h2>
      <p class="hint">
        {own
          ? t('Your workspace’s template.')
          : t('From the global library ({key}); read-only.', { key: template.globalKey ?? '' })}
      </p>
      {message ? <p role="status">{message}</p> : null}
      <ErrorNotice error={error} />
      {editable ? (
        <form onSubmit={(e) => void saveOwn(e)} class="grid-form">
          <label class="field wide">
            <span>{t('Title')}</span>
            <input value={draft.title} onInput={(e) => setDraft({ ...draft, title: e.currentTarget.value })} />
          </label>
          <label class="field">
            <span>{t('Severity')}</span>
            <select
              value={draft.severity}
              onChange={(e) => setDraft({ ...draft, severity: e.currentTarget.value as FindingTemplate['severity'] })}
            >
              {SEVERITY_ORDER.map((s) => (
                <option key={s} value={s}>
                  {severityLabel(s)}
                </option>
              ))}
            </select>
          </label>
          <label class="field wide">
            <span>{t('Description')}</span>
            <textarea
              rows={6}
              value={draft.description}
              onInput={(e) => setDraft({ ...draft, description: e.currentTarget.value })}
            />
          </label>
          <label class="field wide">
            <span>{t('Remediation')}</span>
            <textarea
              rows={4}
              value={draft.remediation}
              onInput={(e) => setDraft({ ...draft, remediation: e.currentTarget.value })}
            />
          </label>
          <button type="submit" class="button">
            {t('Save')}
          </button>
        </form>
      ) : (
        <>
          <MarkdownPreview markdown={template.description} evidence={[]} />
          <h3>{t('Remediation')}</h3>
          <MarkdownPreview markdown={template.remediation} evidence={[]} />
          {!own && isAdmin() ? (
            <button type="button" class="button" onClick={() => void copy()}>
              {t('Copy to workspace')}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

function FindingTemplates() {
  const list = useListQuery(['language', 'origin', 'severity'] as const);
  const [chosen, setChosen] = useState<FindingTemplate | null>(null);
  const templates = useResource(
    () =>
      callPage(
        api.GET('/rest/v1/finding-library', {
          params: {
            query: {
              page: list.page,
              per_page: 25,
              ...(list.q ? { q: list.q } : {}),
              ...(setOnly(list.filters) as {
                language?: string;
                origin?: 'global' | 'own';
                severity?: FindingTemplate['severity'];
              }),
            },
          },
        }),
      ),
    [list.page, list.q, list.filters.language, list.filters.origin, list.filters.severity],
  );
  return (
    <>
      <div class="toolbar">
        <SearchBox label={t('Search the finding library')} value={list.q} onSearch={list.setQ} />
        <FilterSelect
          label={t('Language')}
          value={list.filters.language}
          onChange={(v) => list.setFilter('language', v)}
          choices={[
            { value: 'en', label: 'English' },
            { value: 'de', label: 'Deutsch' },
          ]}
        />
        <FilterSelect
          label={t('Origin')}
          value={list.filters.origin}
          onChange={(v) => list.setFilter('origin', v)}
          choices={[
            { value: 'global', label: t('Global library') },
            { value: 'own', label: t('This workspace') },
          ]}
        />
        <FilterSelect
          label={t('Severity')}
          value={list.filters.severity}
          onChange={(v) => list.setFilter('severity', v)}
          choices={SEVERITY_ORDER.map((s) => ({ value: s, label: severityLabel(s) }))}
        />
      </div>
      <ErrorNotice error={templates.error} />
      <div class="picker">
        <ul class="picker-list" aria-label={t('Finding templates')}>
          {(templates.data?.rows ?? []).map((tpl) => (
            <li key={tpl.id}>
              <button
                type="button"
                class={chosen?.id === tpl.id ? 'pick chosen' : 'pick'}
                aria-pressed={chosen?.id === tpl.id}
                onClick={() => setChosen(tpl)}
              >
                <SeverityBadge severity={tpl.severity} /> {tpl.title}
                {tpl.globalKey ? '' : ` · ${t('own')}`}
              </button>
            </li>
          ))}
        </ul>
        {chosen ? (
          <TemplateDetail key={chosen.id} template={chosen} onSaved={setChosen} />
        ) : (
          <p class="hint">{t('Choose a template to see it.')}</p>
        )}
      </div>
      {templates.data ? (
        <Pager page={list.page} pages={templates.data.pages} total={templates.data.total} onPage={list.setPage} />
      ) : null}
    </>
  );
}

function NamedList({ kind }: { kind: 'reports' | 'styles' }) {
  const items = useResource<{
    rows: Array<{ id: string; name: string; description: string; globalKey: string | null }>;
  }>(
    () =>
      kind === 'reports'
        ? callPage(api.GET('/rest/v1/report-templates', { params: { query: { per_page: 100 } } }))
        : callPage(api.GET('/rest/v1/style-library', { params: { query: { per_page: 100 } } })),
    [kind],
  );
  return (
    <>
      <ErrorNotice error={items.error} />
      <ul class="plain">
        {(items.data?.rows ?? []).map((item) => (
          <li key={item.id} class="card">
            <strong>{item.name}</strong>
            {item.globalKey ? <span class="hint"> · {t('global')}</span> : null}
            {item.description ? <p>{item.description}</p> : null}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The libraries: finding templates (both languages), report templates and styles. */
export function LibraryPage({ kind }: { kind?: string }) {
  usePageTitle(t('Library'));
  const current = KINDS.find((k) => k.key === kind)?.key ?? 'findings';
  return (
    <section aria-labelledby="library-title">
      <h1 id="library-title">{t('Library')}</h1>
      <nav class="report-sections" aria-label={t('Library kinds')}>
        {KINDS.map((k) => (
          <a key={k.key} href={`/library/${k.key}`} aria-current={k.key === current ? 'page' : undefined}>
            {t(k.label)}
          </a>
        ))}
      </nav>
      {current === 'findings' ? <FindingTemplates /> : <NamedList kind={current} />}
    </section>
  );
}
