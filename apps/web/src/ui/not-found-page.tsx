import { useEffect } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';

/**
 * The one "not found" page: for a path the workspace does not have, and for anything the
 * service answers 404 for, missing or not visible alike, as the API does.
 */
export function NotFoundPage({ message }: { message?: string }) {
  useEffect(() => {
    document.title = `${t('Not found')} · service`;
  }, []);
  return (
    <section class="not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">{t('Not found')}</h1>
      <p>{message ?? t('There is nothing here, or you may not see it.')}</p>
      <p>
        <code>not_found</code>
      </p>
      <p>
        <a href="/reports">{t('Go to the reports')}</a>
      </p>
    </section>
  );
}
