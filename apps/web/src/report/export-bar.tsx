import { useEffect, useState } from 'preact/hooks';
import { downloadFile } from '../api/api-client.ts';
import { ApiError } from '../api/api-error.ts';
import { t } from '../i18n/i18n.ts';

const EXPORTS = [
  { kind: 'docx', label: 'DOCX' },
  { kind: 'pdf', label: 'PDF' },
  { kind: 'csv', label: 'CSV' },
  { kind: 'markdown', label: 'Markdown' },
] as const;

type ExportKind = (typeof EXPORTS)[number]['kind'];

/**
 * Exports: each button says while its file is being made, never freezes, and when the service is
 * busy (503 with Retry-After) says when to try again and counts down.
 */
export function ExportBar({ reportId }: { reportId: string }) {
  const [busy, setBusy] = useState<ExportKind | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [retryAt, setRetryAt] = useState<{ kind: ExportKind; at: number } | null>(null);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!retryAt) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [retryAt]);
  const run = async (kind: ExportKind) => {
    setBusy(kind);
    setMessage(null);
    setRetryAt(null);
    try {
      const file = await downloadFile(`/rest/v1/reports/${reportId}/export-${kind}`);
      setMessage(t('Downloaded {name}.', { name: file.name }));
    } catch (err) {
      if (err instanceof ApiError && err.retryAfter && (err.status === 503 || err.status === 429)) {
        setRetryAt({ kind, at: Date.now() + err.retryAfter * 1000 });
        setMessage(t('The service is busy making documents. Try again in {seconds} s.', { seconds: err.retryAfter }));
      } else setMessage(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(null);
    }
  };
  const wait = retryAt ? Math.max(0, Math.ceil((retryAt.at - now) / 1000)) : 0;
  return (
    <fieldset class="export-bar">
      <legend class="visually-hidden">{t('Export')}</legend>
      {EXPORTS.map((e) => (
        <button
          key={e.kind}
          type="button"
          class="button secondary"
          aria-busy={busy === e.kind}
          disabled={busy !== null || (retryAt?.kind === e.kind && wait > 0)}
          onClick={() => void run(e.kind)}
        >
          {busy === e.kind
            ? t('Making {format}…', { format: e.label })
            : retryAt?.kind === e.kind && wait > 0
              ? t('{format} (again in {seconds} s)', { format: e.label, seconds: wait })
              : t('Export {format}', { format: e.label })}
        </button>
      ))}
      <span role="status" aria-live="polite" class="hint">
        {message ?? ''}
      </span>
    </fieldset>
  );
}
