import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';

/**
 * A modal dialog on the native <dialog> element: focus moves into it and stays there, Escape
 * closes it, and focus returns to what opened it.
 */
export function ModalDialog(props: {
  title: string;
  open: boolean;
  onClose(): void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  const titleId = `dialog-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <dialog
      ref={ref}
      class={props.wide ? 'dialog wide' : 'dialog'}
      aria-labelledby={titleId}
      onClose={() => props.onClose()}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      {props.open ? (
        <>
          <header class="dialog-head">
            <h2 id={titleId}>{props.title}</h2>
            <button type="button" class="button quiet" onClick={() => props.onClose()}>
              {t('Close')}
            </button>
          </header>
          <div class="dialog-body">{props.children}</div>
        </>
      ) : null}
    </dialog>
  );
}
