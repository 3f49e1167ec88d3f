import { ApiError } from '../api/api-error.ts';
import { t } from '../i18n/i18n.ts';

/** What went wrong, as the service said it (code, message, the fields it names). */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : null;
  return (
    <div class="notice error" role="alert">
      <p>
        {api ? `${api.message} (${api.code})` : error instanceof Error ? error.message : String(error)}
        {api?.retryAfter ? ` ${t('Try again in {seconds} s.', { seconds: api.retryAfter })}` : ''}
      </p>
      {api && api.details.length > 0 ? (
        <ul>
          {api.details.map((d) => (
            <li key={d.path}>
              <code>{d.path}</code> {d.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
