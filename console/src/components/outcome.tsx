import type { ComponentChildren } from 'preact';
import { ApiError } from '../api';

/** What an action answered, shown next to its control: a notice, or an error when it was refused. */
export type Result = { ok: boolean; text: string };

/**
 * The answer of the last action (nothing before the first). `alert`: a refusal is announced at once
 * (role alert) rather than politely; the user's page does so for the changes identity refuses.
 */
export function Outcome({ result, alert, children }: { result?: Result; alert?: boolean; children?: ComponentChildren }) {
  if (!result) return null;
  return (
    <p class={result.ok ? 'notice' : 'error'} role={alert && !result.ok ? 'alert' : 'status'}>
      {result.text}
      {children}
    </p>
  );
}

/** A refusal as the pages show it: the API's message and its code (EXECUTION_NOT_CANCELLABLE, ...). */
export function refused(error: unknown): Result {
  const e = error as Error;
  return { ok: false, text: `Refused: ${e.message}${e instanceof ApiError ? ` (${e.code})` : ''}` };
}
