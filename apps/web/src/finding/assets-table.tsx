import type { AffectedAsset } from '../api/api-types.ts';
import { t } from '../i18n/i18n.ts';

const COLUMNS = [
  { key: 'host', label: 'Host' },
  { key: 'port', label: 'Port' },
  { key: 'protocol', label: 'Protocol' },
  { key: 'service', label: 'Service' },
  { key: 'url', label: 'URL' },
] as const;

/** The affected assets as an editable table; each shows the excerpt documents print of its evidence. */
export function AssetsTable(props: { assets: AffectedAsset[]; readOnly: boolean; onChange(a: AffectedAsset[]): void }) {
  const set = (i: number, patch: Partial<AffectedAsset>) =>
    props.onChange(props.assets.map((a, j) => (j === i ? { ...a, ...patch } : a)));
  return (
    <div class="assets">
      <table class="table compact">
        <caption>{t('Affected assets ({count})', { count: props.assets.length })}</caption>
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th key={c.key} scope="col">
                {t(c.label)}
              </th>
            ))}
            <th scope="col">{t('Evidence excerpt')}</th>
            {!props.readOnly ? <th scope="col">{t('Actions')}</th> : null}
          </tr>
        </thead>
        <tbody>
          {props.assets.map((asset, i) => (
            <tr key={i}>
              {COLUMNS.map((c) => (
                <td key={c.key}>
                  <input
                    class="cell"
                    aria-label={t('{column} of asset {n}', { column: t(c.label), n: i + 1 })}
                    value={asset[c.key] === null || asset[c.key] === undefined ? '' : String(asset[c.key])}
                    disabled={props.readOnly}
                    inputMode={c.key === 'port' ? 'numeric' : undefined}
                    onInput={(e) => {
                      const v = e.currentTarget.value;
                      if (c.key === 'port') set(i, { port: v === '' ? null : Number.parseInt(v, 10) || null });
                      else set(i, { [c.key]: v || undefined });
                    }}
                  />
                </td>
              ))}
              <td>
                <details>
                  <summary>{t('Excerpt')}</summary>
                  <pre class="excerpt">{asset.excerpt || asset.evidence || t('(none)')}</pre>
                </details>
              </td>
              {!props.readOnly ? (
                <td>
                  <button
                    type="button"
                    class="tool"
                    aria-label={t('Remove asset {n}', { n: i + 1 })}
                    onClick={() => props.onChange(props.assets.filter((_, j) => j !== i))}
                  >
                    {t('Remove')}
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {!props.readOnly ? (
        <button type="button" class="button secondary" onClick={() => props.onChange([...props.assets, { host: '' }])}>
          {t('Add asset')}
        </button>
      ) : null}
    </div>
  );
}
