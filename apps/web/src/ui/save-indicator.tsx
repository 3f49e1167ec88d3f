import { t } from '../i18n/i18n.ts';
import type { SaveState } from '../sync/save-state.ts';

const TEXT: Record<SaveState, string> = {
  saved: 'All changes saved',
  unsaved: 'Unsaved changes',
  saving: 'Saving…',
  offline: 'Not saved yet: no connection. Kept in this browser; retrying',
  conflict: 'Conflict: someone else saved too',
  error: 'Not saved',
};

/** The save state, announced to screen readers as it changes. */
export function SaveIndicator({ state, error }: { state: SaveState; error?: string | null }) {
  return (
    <span class={`save-state save-${state}`} role="status" aria-live="polite" data-save-state={state}>
      {t(TEXT[state])}
      {state === 'error' && error ? `: ${error}` : ''}
    </span>
  );
}
