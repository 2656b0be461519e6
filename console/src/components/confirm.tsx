import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';

let dialogs = 0;

/**
 * A button for something that cannot be undone (ending a session, deactivating a user, cancelling
 * an execution, a run that costs): it opens a modal dialog that says what will happen, and only
 * its confirm button acts. The dialog is the browser's own (`<dialog>` with showModal): focus moves
 * into it, Escape closes it, and the page behind cannot be reached meanwhile.
 */
export function ConfirmButton(props: {
  label: string;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  disabled?: boolean;
  describedBy?: string;
  danger?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [id] = useState(() => `confirm-${++dialogs}`);
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return (
    <>
      <button
        type="button"
        class={props.danger ? 'danger' : undefined}
        disabled={props.disabled || busy}
        aria-describedby={props.describedBy}
        onClick={() => dialog.current?.showModal()}
      >
        {busy ? `${props.label}…` : props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`} class="confirm">
        <h2 id={`${id}-title`}>{props.title}</h2>
        <div>{props.children}</div>
        <p class="dialog-buttons">
          <button type="button" class={props.danger ? 'danger' : undefined} disabled={busy} onClick={() => void confirm()}>
            {props.confirmLabel}
          </button>
          <button type="button" class="secondary" disabled={busy} onClick={() => dialog.current?.close()}>
            Keep it
          </button>
        </p>
      </dialog>
    </>
  );
}
