import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';

export type AsyncState<T> = { loading: boolean; data?: T; error?: ApiError | Error; reload: () => void };

/**
 * Loads `load()` when `deps` change, and every `refreshMs` if given, without losing what is shown:
 * a refresh keeps the previous answer on screen until the new one arrives. A refresh is skipped
 * while the last load is still waiting (each call gives up after CALL_TIMEOUT_MS), so slow
 * answers never pile up; a reload the user asks for always goes. An answer for other `deps` (the
 * filters before Apply, say) is never shown as this one's: from the render in which `deps` change,
 * the state is loading until their own answer arrives.
 */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[], refreshMs?: number): AsyncState<T> {
  // `of` is the `run` (one per `deps`) the answer was loaded by.
  const [state, setState] = useState<{ loading: boolean; data?: T; error?: Error; of?: unknown }>({ loading: true });
  const generation = useRef(0);
  const waiting = useRef(false);
  const run = useCallback(() => {
    const mine = ++generation.current;
    waiting.current = true;
    setState((s) => ({ ...s, loading: true }));
    const settle = () => {
      if (mine !== generation.current) return false;
      waiting.current = false;
      return true;
    };
    load().then(
      (data) => settle() && setState({ loading: false, data, of: run }),
      (error: Error) => settle() && setState((s) => ({ loading: false, data: s.of === run ? s.data : undefined, error, of: run })),
    );
  }, deps);
  useEffect(() => {
    run();
    if (!refreshMs) return () => void generation.current++;
    const timer = setInterval(() => waiting.current || run(), refreshMs);
    return () => {
      clearInterval(timer);
      generation.current++;
      waiting.current = false;
    };
  }, [run, refreshMs]);
  if (state.of !== run) return { loading: true, error: undefined, data: undefined, reload: run };
  return { loading: state.loading, data: state.data, error: state.error, reload: run };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function ErrorMessage({ error, retry, what }: { error: Error; retry?: () => void; what: string }) {
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <div class="error" role="alert">
      <p>
        <strong>Could not load {what}.</strong> {error.message}
        {code && <span class="code"> ({code})</span>}
      </p>
      {retry && (
        <button type="button" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/**
 * The three states every page has: first load (loading), failure with nothing to show (message and
 * retry), and the answer. A failed refresh keeps the last answer and shows the error above it.
 */
export function AsyncView<T>({ state, what, children }: { state: AsyncState<T>; what: string; children: (data: T) => ComponentChildren }) {
  if (state.data === undefined) {
    if (state.error) return <ErrorMessage error={state.error} retry={state.reload} what={what} />;
    return <Loading what={what} />;
  }
  return (
    <>
      {state.error && <ErrorMessage error={state.error} retry={state.reload} what={what} />}
      {children(state.data)}
    </>
  );
}
