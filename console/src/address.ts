/** The pages keep their filters in the address, so a refresh, a reload and a shared link keep them. */
import { useState, type Dispatch, type StateUpdater } from 'preact/hooks';

/** `path` with `values` as its query string; an empty value ('' or 0) is no filter and is left out. */
export function withQuery(path: string, values: Record<string, string | number>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value) params.set(key, String(value));
  const qs = params.toString();
  return `${path}${qs ? `?${qs}` : ''}`;
}

/**
 * The filters a form is editing, starting from those the address holds (`key` names them). The form
 * follows the address when it changes (Apply, Back, a shared link), in the render that sees the
 * change: an effect ran after the first paint too and wiped what was typed in between.
 */
export function useDraft<T>(applied: T, key: string): [T, Dispatch<StateUpdater<T>>] {
  const [draft, setDraft] = useState(applied);
  const [draftKey, setDraftKey] = useState(key);
  if (draftKey !== key) {
    setDraftKey(key);
    setDraft(applied);
  }
  return [draft, setDraft];
}
