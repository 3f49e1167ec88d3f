import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call } from '../api/api-client.ts';
import { t } from '../i18n/i18n.ts';
import { ErrorNotice } from '../ui/error-notice.tsx';
import { ModalDialog } from '../ui/modal-dialog.tsx';

/** Moves a client, project or report to the trash, after asking; administrators restore it. */
export function TrashButton(props: { kind: 'client' | 'project' | 'report'; id: string; name: string; after: string }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const { route } = useLocation();
  const remove = async () => {
    try {
      const path = {
        client: '/rest/v1/clients/{id}',
        project: '/rest/v1/projects/{id}',
        report: '/rest/v1/reports/{id}',
      }[props.kind] as '/rest/v1/reports/{id}';
      await call(api.DELETE(path, { params: { path: { id: props.id } } }));
      route(props.after);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <button type="button" class="button danger" onClick={() => setOpen(true)}>
        {t('Move to trash')}
      </button>
      <ModalDialog title={t('Move to trash')} open={open} onClose={() => setOpen(false)}>
        <p>
          {t('Move “{name}” and everything in it to the trash? An administrator can restore it.', { name: props.name })}
        </p>
        <ErrorNotice error={error} />
        <div class="actions">
          <button type="button" class="button danger" onClick={() => void remove()}>
            {t('Move to trash')}
          </button>
          <button type="button" class="button secondary" onClick={() => setOpen(false)}>
            {t('Cancel')}
          </button>
        </div>
      </ModalDialog>
    </>
  );
}
