import { scoreCvssVector, severityFromCvssScore } from '@service/report-model';
import { useState } from 'preact/hooks';
import type { Cvss } from '../api/api-types.ts';
import { t } from '../i18n/i18n.ts';
import { SeverityBadge } from '../ui/severity-badge.tsx';
import { CVSS_CALCULATORS, metricsOfVector, vectorOfMetrics } from './cvss-metrics.ts';

type Calculator = (typeof CVSS_CALCULATORS)[number];

/** Scores a vector with report-model's scoring (the one the service uses); null with the reason when it does not parse. */
export function scoreOf(vector: string): { score: number; error: null } | { score: null; error: string } {
  try {
    return { score: scoreCvssVector(vector).base, error: null };
  } catch (err) {
    return { score: null, error: err instanceof Error ? err.message : String(err) };
  }
}

/** One version's calculator: metrics <-> vector, with the score and its band. */
function VersionCalculator(props: {
  calc: Calculator;
  rating: Cvss | undefined;
  readOnly: boolean;
  onChange(c: Cvss | null): void;
}) {
  const { calc } = props;
  const [typed, setTyped] = useState<string | null>(null);
  const vector = typed ?? props.rating?.vector ?? '';
  const chosen = metricsOfVector(vector);
  const scored = vector ? scoreOf(vector) : null;
  const setVector = (next: string) => {
    setTyped(next);
    if (next.trim() === '') return props.onChange(null);
    const result = scoreOf(next.trim());
    if (result.score !== null) props.onChange({ version: calc.version, vector: next.trim(), baseScore: result.score });
  };
  const id = `cvss-${calc.version.replace('.', '')}`;
  return (
    <fieldset class="cvss" aria-describedby={`${id}-score`}>
      <legend>{t('CVSS {version}', { version: calc.version })}</legend>
      <div class="cvss-metrics">
        {calc.metrics.map((metric) => (
          <label key={metric.key} class="field">
            <span>
              {t(metric.name)} ({metric.key})
            </span>
            <select
              value={chosen[metric.key] ?? ''}
              disabled={props.readOnly}
              onChange={(e) => {
                const next = vectorOfMetrics(calc.prefix, calc.metrics, {
                  ...chosen,
                  [metric.key]: e.currentTarget.value,
                });
                if (next) setVector(next);
                else
                  setTyped(
                    `${calc.prefix}/${Object.entries({ ...chosen, [metric.key]: e.currentTarget.value })
                      .map(([k, v]) => `${k}:${v}`)
                      .join('/')}`,
                  );
              }}
            >
              <option value="">—</option>
              {metric.values.map((v) => (
                <option key={v.value} value={v.value}>
                  {t(v.name)} ({v.value})
                </option>
              ))}
            </select>
          </label>
        ))}
      </div>
      <label class="field wide">
        <span>{t('Vector')}</span>
        <input
          value={vector}
          disabled={props.readOnly}
          spellcheck={false}
          placeholder={`${calc.prefix}/…`}
          onInput={(e) => setVector(e.currentTarget.value)}
        />
      </label>
      <p id={`${id}-score`} class="cvss-score" role="status">
        {scored?.score !== null && scored?.score !== undefined ? (
          <>
            {t('Base score {score}', { score: scored.score.toFixed(1) })}{' '}
            <SeverityBadge severity={severityFromCvssScore(scored.score)} />
          </>
        ) : scored?.error ? (
          <span class="error-text">{scored.error}</span>
        ) : (
          t('No vector yet.')
        )}
      </p>
    </fieldset>
  );
}

/** The CVSS 3.1 and 4.0 calculators of a finding; other versions it has (2.0, 3.0) are kept as they are. */
export function CvssCalculators(props: { cvss: Cvss[]; readOnly: boolean; onChange(cvss: Cvss[]): void }) {
  return (
    <div class="cvss-calculators">
      {CVSS_CALCULATORS.map((calc) => (
        <VersionCalculator
          key={calc.version}
          calc={calc}
          readOnly={props.readOnly}
          rating={props.cvss.find((c) => c.version === calc.version)}
          onChange={(rating) =>
            props.onChange([...props.cvss.filter((c) => c.version !== calc.version), ...(rating ? [rating] : [])])
          }
        />
      ))}
    </div>
  );
}
