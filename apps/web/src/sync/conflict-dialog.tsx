import { useState } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';
import { ModalDialog } from '../ui/modal-dialog.tsx';
import type { Autosave, Versioned } from './use-autosave.ts';

function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/**
 * Someone else saved what you were editing: their version beside yours, field by field; keep
 * yours, take theirs, or choose per field. Nothing is sent until you choose.
 */
export function ConflictDialog<T extends Versioned>({
  save,
  labels,
}: {
  save: Autosave<T>;
  labels: Partial<Record<keyof T, string>>;
}) {
  const conflict = save.conflict;
  const [choice, setChoice] = useState<Partial<Record<keyof T, 'mine' | 'theirs'>>>({});
  if (!conflict) return null;
  const fields = (Object.keys(conflict.mine) as Array<keyof T>).filter(
    (f) => shown(conflict.mine[f]) !== shown(conflict.theirs[f]),
  );
  const done = (c: Partial<Record<keyof T, 'mine' | 'theirs'>>) => {
    setChoice({});
    save.resolve(c);
  };
  const all = (side: 'mine' | 'theirs') => Object.fromEntries(fields.map((f) => [f, side])) as typeof choice;
  return (
    <ModalDialog title={t('Someone else saved this too')} open onClose={() => undefined} wide>
      <p>{t('Your changes are kept in this browser. Choose, for each field, which version to keep.')}</p>
      {fields.length === 0 ? <p>{t('Their version has the same text as yours.')}</p> : null}
      {fields.map((field) => {
        const name = labels[field] ?? String(field);
        const side = choice[field] ?? 'mine';
        return (
          <fieldset key={String(field)} class="conflict-field">
            <legend>{name}</legend>
            <div class="conflict-versions">
              <label class={side === 'mine' ? 'version chosen' : 'version'}>
                <input
                  type="radio"
                  name={`conflict-${String(field)}`}
                  checked={side === 'mine'}
                  onChange={() => setChoice({ ...choice, [field]: 'mine' })}
                />
                <span class="version-title">{t('Yours')}</span>
                <pre>{shown(conflict.mine[field])}</pre>
              </label>
              <label class={side === 'theirs' ? 'version chosen' : 'version'}>
                <input
                  type="radio"
                  name={`conflict-${String(field)}`}
                  checked={side === 'theirs'}
                  onChange={() => setChoice({ ...choice, [field]: 'theirs' })}
                />
                <span class="version-title">{t('Theirs')}</span>
                <pre>{shown(conflict.theirs[field])}</pre>
              </label>
            </div>
          </fieldset>
        );
      })}
      <div class="actions">
        <button type="button" class="button" onClick={() => done(choice)}>
          {t('Save as chosen')}
        </button>
        <button type="button" class="button secondary" onClick={() => done(all('mine'))}>
          {t('Keep mine')}
        </button>
        <button type="button" class="button secondary" onClick={() => done(all('theirs'))}>
          {t('Take theirs')}
        </button>
      </div>
    </ModalDialog>
  );
}
