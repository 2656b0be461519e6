import { useState } from 'preact/hooks';

/** Copies an id to the clipboard; the button says it did (or could not), for screen readers too. */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setDone('copied');
    } catch {
      setDone('failed');
    }
    setTimeout(() => setDone(undefined), 2000);
  };
  return (
    <button type="button" class="copy" onClick={() => void copy()} aria-label={`Copy ${what} ${value}`} data-copy={value}>
      <span aria-live="polite">{done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}
