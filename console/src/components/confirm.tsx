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

/**
 * A button for a decision that must say why (approving or rejecting a payment held for review):
 * its dialog holds a required reason, and the confirm button sends it. An empty reason (or only
 * spaces) is refused by the form before anything is sent; the service refuses it too.
 */
export function ReasonButton(props: {
  label: string;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: (reason: string) => Promise<unknown> | void;
  disabled?: boolean;
  danger?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [id] = useState(() => `reason-${++dialogs}`);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!reason.trim()) return;
    setBusy(true);
    try {
      await props.onConfirm(reason.trim());
      setReason('');
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return (
    <>
      <button type="button" class={props.danger ? 'danger' : undefined} disabled={props.disabled || busy} onClick={() => dialog.current?.showModal()}>
        {busy ? `${props.label}…` : props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${id}-title`} class="confirm">
        <form onSubmit={(event) => void submit(event)}>
          <h2 id={`${id}-title`}>{props.title}</h2>
          <div>{props.children}</div>
          <p>
            <label for={`${id}-text`}>Reason (kept in the audit with your name)</label>
            <textarea
              id={`${id}-text`}
              name="reason"
              required
              maxLength={500}
              rows={3}
              value={reason}
              onInput={(event) => setReason((event.target as HTMLTextAreaElement).value)}
            />
          </p>
          <p class="dialog-buttons">
            <button type="submit" class={props.danger ? 'danger' : undefined} disabled={busy || !reason.trim()}>
              {props.confirmLabel}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => dialog.current?.close()}>
              Keep it
            </button>
          </p>
        </form>
      </dialog>
    </>
  );
}
