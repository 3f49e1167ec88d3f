import { useEffect, useState } from 'preact/hooks';
import { formatNumber, t } from '../i18n/i18n.ts';

/** A search field that searches as the person pauses typing (`q` of the REST lists). */
export function SearchBox(props: { value: string; onSearch(q: string): void; label: string }) {
  const [text, setText] = useState(props.value);
  useEffect(() => {
    if (text === props.value) return;
    const timer = window.setTimeout(() => props.onSearch(text.trim()), 300);
    return () => window.clearTimeout(timer);
  }, [text]);
  return (
    <label class="field search">
      <span>{props.label}</span>
      <input type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} />
    </label>
  );
}

export interface Choice {
  value: string;
  label: string;
}

/** A filter of a list: one of its values, or all. */
export function FilterSelect(props: { label: string; value: string; choices: Choice[]; onChange(v: string): void }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{t('All')}</option>
        {props.choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Previous / next page, and where we are. */
export function Pager(props: { page: number; pages: number; total: number; onPage(page: number): void }) {
  return (
    <nav class="pager" aria-label={t('Pages')}>
      <button
        type="button"
        class="button secondary"
        disabled={props.page <= 1}
        onClick={() => props.onPage(props.page - 1)}
      >
        {t('Previous')}
      </button>
      <span>
        {t('Page {page} of {pages} ({total} in all)', {
          page: props.page,
          pages: Math.max(1, props.pages),
          total: formatNumber(props.total),
        })}
      </span>
      <button
        type="button"
        class="button secondary"
        disabled={props.page >= props.pages}
        onClick={() => props.onPage(props.page + 1)}
      >
        {t('Next')}
      </button>
    </nav>
  );
}
