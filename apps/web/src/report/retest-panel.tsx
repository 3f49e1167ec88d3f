import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call, callAll, callPage } from '../api/api-client.ts';
import type { Finding, Report, RetestResult, RetestStatus } from '../api/api-types.ts';
import { formatTime, t } from '../i18n/i18n.ts';
import { canEdit } from '../session.ts';
import { ConflictDialog } from '../sync/conflict-dialog.tsx';
import { useAutosave } from '../sync/use-autosave.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { SaveIndicator } from '../ui/save-indicator.tsx';
import { SeverityBadge } from '../ui/severity-badge.tsx';
import { useResource } from '../ui/use-resource.ts';
import { uploadEvidence } from './evidence-upload.ts';
import { RETEST_STATUSES, retestStatusLabel } from './findings-panel.tsx';

type AssetStatus = RetestResult['assets'][number]['status'];
const ASSET_STATUSES: readonly AssetStatus[] = ['not_retested', 'resolved', 'unresolved', 'new'];

/** The retests of a report: its rounds, and "create the next round". */
function RetestRounds({ report }: { report: Report }) {
  const { route } = useLocation();
  const originalId = report.originalReportId ?? report.id;
  const rounds = useResource(
    () =>
      callPage(api.GET('/rest/v1/reports', { params: { query: { original_report_id: originalId, per_page: 100 } } })),
    [originalId],
  );
  const [error, setError] = useState<unknown>(null);
  const create = async () => {
    try {
      const retest = await call(api.POST('/rest/v1/reports/{id}/retests', { params: { path: { id: report.id } } }));
      route(`/reports/${retest.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="rounds-title">
      <h2 id="rounds-title">{t('Retest rounds')}</h2>
      <ul>
        {(rounds.data?.rows ?? []).map((r) => (
          <li key={r.id}>
            <a href={`/reports/${r.id}`}>{r.title}</a> · {t('Retest {round}', { round: r.round })} ·{' '}
            {formatTime(r.createdAt)}
          </li>
        ))}
      </ul>
      {rounds.data?.rows.length === 0 ? <p>{t('No retest yet.')}</p> : null}
      <ErrorNotice error={error} />
      {canEdit() ? (
        <button type="button" class="button" onClick={() => void create()}>
          {t('Create the next retest round')}
        </button>
      ) : null}
    </section>
  );
}

/** One finding's retest result: status, note, each asset's status, and retest evidence. */
function RetestResultEditor({ result, finding }: { result: RetestResult; finding: Finding | undefined }) {
  const editable = canEdit();
  const save = useAutosave<RetestResult>({
    draftKey: `retest-result:${result.id}`,
    row: result,
    save: (changes, expectedUpdatedAt) =>
      call(
        api.PATCH('/rest/v1/retest-results/{id}', {
          params: { path: { id: result.id } },
          body: {
            status: changes.status,
            statusSetBy: changes.status ? 'person' : undefined,
            notes: changes.notes,
            assets: changes.assets,
            expectedUpdatedAt,
          } as never,
        }),
      ),
    fetchLatest: () => call(api.GET('/rest/v1/retest-results/{id}', { params: { path: { id: result.id } } })),
  });
  const value = save.value;
  const [uploaded, setUploaded] = useState(0);
  const id = `retest-${result.id}`;
  return (
    <li class="retest-result card" aria-labelledby={id}>
      <div class="section-head">
        <h3 id={id}>
          {finding ? <SeverityBadge severity={finding.severity} /> : null} {finding?.title ?? result.findingId}
        </h3>
        <SaveIndicator state={save.state} error={save.error} />
      </div>
      <ConflictDialog save={save} labels={{ status: t('Status'), notes: t('Note'), assets: t('Assets') }} />
      <div class="grid-form">
        <label class="field">
          <span>{t('Retest status')}</span>
          <select
            value={value.status}
            disabled={!editable}
            onChange={(e) => save.change('status', e.currentTarget.value as RetestStatus)}
          >
            {RETEST_STATUSES.map((s) => (
              <option key={s} value={s}>
                {retestStatusLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label class="field wide">
          <span>{t('Note')}</span>
          <textarea
            rows={2}
            value={value.notes}
            disabled={!editable}
            onInput={(e) => save.change('notes', e.currentTarget.value)}
          />
        </label>
      </div>
      {value.assets.length > 0 ? (
        <table class="table compact">
          <caption>{t('Assets')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('Asset')}</th>
              <th scope="col">{t('Status')}</th>
            </tr>
          </thead>
          <tbody>
            {value.assets.map((asset, i) => {
              const name = [asset.host, asset.port ? `:${asset.port}` : '', asset.url ?? ''].join('') || `#${i + 1}`;
              return (
                <tr key={name}>
                  <td>{name}</td>
                  <td>
                    <select
                      aria-label={t('Status of {asset}', { asset: name })}
                      value={asset.status}
                      disabled={!editable}
                      onChange={(e) =>
                        save.change(
                          'assets',
                          value.assets.map((a, j) =>
                            j === i ? { ...a, status: e.currentTarget.value as AssetStatus } : a,
                          ),
                        )
                      }
                    >
                      {ASSET_STATUSES.map((s) => (
                        <option key={s} value={s}>
                          {retestStatusLabel(s)}
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {editable ? (
        <label class="field">
          <span>{t('Add retest evidence')}</span>
          <input
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            multiple
            onChange={(e) => {
              const files = Array.from(e.currentTarget.files ?? []);
              void uploadEvidence({ retestResultId: result.id }, files).then((u) =>
                setUploaded((n) => n + u.images.length),
              );
            }}
          />
          {uploaded > 0 ? <span role="status">{t('{count} image(s) added.', { count: uploaded })}</span> : null}
        </label>
      ) : null}
    </li>
  );
}

/** Retests: the rounds of a report, and in a retest report the result of each finding. */
export function RetestPanel({ report, findings }: { report: Report; findings: Finding[] }) {
  const results = useResource(
    async () =>
      report.kind === 'retest'
        ? callAll((page) =>
            api.GET('/rest/v1/retest-results', { params: { query: { report_id: report.id, per_page: 100, page } } }),
          )
        : [],
    [report.id, report.kind],
  );
  const byId = new Map(findings.map((f) => [f.id, f]));
  return (
    <div class="retests">
      <RetestRounds report={report} />
      {report.kind === 'retest' ? (
        <section aria-labelledby="results-title">
          <h2 id="results-title">{t('Retest results')}</h2>
          <p class="hint">
            {t('A re-scan goes through “Import scan” on the findings page and decides these for you.')}
          </p>
          <ErrorNotice error={results.error} />
          <ul class="plain">
            {(results.data ?? []).map((r) => (
              <RetestResultEditor key={r.id} result={r} finding={byId.get(r.findingId)} />
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
