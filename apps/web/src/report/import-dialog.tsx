import { useState } from 'preact/hooks';
import { api, call } from '../api/api-client.ts';
import { ApiError } from '../api/api-error.ts';
import type { Report, ScanImportResult, Severity } from '../api/api-types.ts';
import { t } from '../i18n/i18n.ts';
import { ModalDialog } from '../ui/modal-dialog.tsx';
import { SEVERITY_ORDER, SeverityBadge, severityLabel } from '../ui/severity-badge.tsx';

interface FileState {
  file: File;
  dryRun?: ScanImportResult;
  imported?: ScanImportResult;
  error?: ApiError | Error;
}

/** What the dry run shows first: what will be created, then merged, then skipped. */
const OUTCOME_ORDER = { created: 0, merged: 1, skipped: 2 } as const;

/** Why `low`: informational results (open ports, banners) would bury the findings; a person can still pick `info`. */
const DEFAULT_MIN_SEVERITY: Severity = 'low';

function FileResult({ state }: { state: FileState }) {
  const result = state.imported ?? state.dryRun;
  if (state.error)
    return (
      <div class="notice error" role="alert">
        <p>
          {t('Refused:')} {state.error.message}
        </p>
        {state.error instanceof ApiError ? state.error.details.map((d) => <p key={d.path}>{d.message}</p>) : null}
      </div>
    );
  if (!result) return null;
  return (
    <>
      <p>
        {t('{format}: {created} to create, {merged} to merge, {skipped} skipped', {
          format: result.format ?? 'JSON',
          created: result.created,
          merged: result.merged,
          skipped: result.skipped,
        })}
        {state.imported ? ` — ${t('imported')}` : ` — ${t('dry run, nothing written yet')}`}
      </p>
      {result.retest ? (
        <p>
          {t('Retest decisions: {changed} changed, {unchanged} unchanged, {notDecided} not decided', {
            changed: result.retest.changed,
            unchanged: result.retest.unchanged,
            notDecided: result.retest.notDecided,
          })}
        </p>
      ) : null}
      {result.warnings.map((w) => (
        <p key={w} class="hint">
          {w}
        </p>
      ))}
      <table class="table compact">
        <caption class="visually-hidden">{t('Results of {name}', { name: state.file.name })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('Outcome')}</th>
            <th scope="col">{t('Severity')}</th>
            <th scope="col">{t('Title')}</th>
            <th scope="col">{t('Library template')}</th>
          </tr>
        </thead>
        <tbody>
          {[...result.findings]
            .sort((a, b) => OUTCOME_ORDER[a.outcome] - OUTCOME_ORDER[b.outcome])
            .map((f, i) => (
              <tr key={`${f.groupKey}-${i}`}>
                <td>{t({ created: 'Create', merged: 'Merge', skipped: 'Skip' }[f.outcome])}</td>
                <td>
                  <SeverityBadge severity={f.severity} />
                </td>
                <td>{f.title}</td>
                <td>
                  {f.template
                    ? t('{title} (by {matchedOn} {detail}, {confidence} confidence)', {
                        title: f.template.title,
                        matchedOn: f.template.matchedOn,
                        detail: f.template.detail,
                        confidence: f.template.confidence,
                      })
                    : t('none')}
                </td>
              </tr>
            ))}
        </tbody>
      </table>
    </>
  );
}

/**
 * The scanner import dialog: one or more files (Nessus, Burp, Nmap, Nuclei; the service detects
 * which), a minimum severity, a dry run that shows what would be created, merged and skipped and
 * which template matched how, then the import with progress. A refused file says why.
 */
export function ImportDialog(props: { open: boolean; report: Report; onClose(): void; onImported(): void }) {
  const [files, setFiles] = useState<FileState[]>([]);
  const [minSeverity, setMinSeverity] = useState<Severity>(DEFAULT_MIN_SEVERITY);
  const [progress, setProgress] = useState<string | null>(null);
  const run = async (dryRun: boolean) => {
    const next = [...files];
    for (let i = 0; i < next.length; i++) {
      const state = next[i]!;
      if (!dryRun && (state.error || state.imported)) continue;
      setProgress(
        t(dryRun ? 'Dry run of file {n} of {count}…' : 'Importing file {n} of {count}…', {
          n: i + 1,
          count: next.length,
        }),
      );
      try {
        const result = await call(
          api.POST('/rest/v1/reports/{id}/import-scan-file', {
            params: { path: { id: props.report.id } },
            body: { file: state.file, minSeverity, dryRun } as never,
          }),
        );
        next[i] = dryRun ? { file: state.file, dryRun: result } : { ...state, imported: result };
      } catch (err) {
        next[i] = { file: state.file, error: err instanceof Error ? err : new Error(String(err)) };
      }
      setFiles([...next]);
    }
    setProgress(null);
    if (!dryRun) props.onImported();
  };
  const dryRunDone = files.length > 0 && files.every((f) => f.dryRun || f.error);
  const importable = files.some((f) => f.dryRun && !f.imported);
  const allDone = files.length > 0 && files.every((f) => f.imported || f.error);
  return (
    <ModalDialog title={t('Import scanner files')} open={props.open} onClose={props.onClose} wide>
      <p class="hint">
        {props.report.kind === 'retest'
          ? t('A re-scan decides the retest results: what is still reported, what is gone, what is new.')
          : t('Nessus, Burp, Nmap and Nuclei files, up to 4 MB each; the format is detected from the content.')}
      </p>
      <div class="grid-form">
        <label class="field">
          <span>{t('Scanner files')}</span>
          <input
            type="file"
            multiple
            accept=".nessus,.xml,.json,.jsonl"
            onChange={(e) => setFiles(Array.from(e.currentTarget.files ?? []).map((file) => ({ file })))}
          />
        </label>
        <label class="field">
          <span>{t('Minimum severity')}</span>
          <select value={minSeverity} onChange={(e) => setMinSeverity(e.currentTarget.value as Severity)}>
            {[...SEVERITY_ORDER].reverse().map((s) => (
              <option key={s} value={s}>
                {severityLabel(s)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div class="actions">
        <button
          type="button"
          class="button"
          disabled={files.length === 0 || progress !== null}
          onClick={() => void run(true)}
        >
          {t('Dry run')}
        </button>
        <button
          type="button"
          class="button"
          disabled={!dryRunDone || !importable || progress !== null}
          onClick={() => void run(false)}
        >
          {t('Import')}
        </button>
        {allDone ? (
          <button type="button" class="button secondary" onClick={props.onClose}>
            {t('Done')}
          </button>
        ) : null}
      </div>
      <p role="status" aria-live="polite" class="progress">
        {progress ?? ''}
      </p>
      {files.map((state) => (
        <section key={state.file.name} class="import-file" aria-label={state.file.name}>
          <h3>
            {state.file.name} <span class="hint">({Math.ceil(state.file.size / 1024)} KB)</span>
          </h3>
          <FileResult state={state} />
        </section>
      ))}
    </ModalDialog>
  );
}
