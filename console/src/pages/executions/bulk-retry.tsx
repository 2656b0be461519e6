import { useState } from 'preact/hooks';
import { orchestratorApi } from '../../api';
import { ErrorMessage, useAsync } from '../../components/async';
import { ConfirmButton } from '../../components/confirm';
import { Outcome, type Result } from '../../components/outcome';
import { count as counted, formatDateTime, formatNumber } from '../../format';

/** Retries the failed executions created in the range shown, after saying how many and asking. */
export function BulkRetry({ from, to, onDone }: { from: string; to: string; onDone: () => void }) {
  const matched = useAsync(() => orchestratorApi.retryFailed(from, to, true), [from.slice(0, 16), to.slice(0, 16)]);
  const batch = Math.min(100, matched.data?.matched ?? 0);
  const [result, setResult] = useState<Result>();
  const retry = async () => {
    try {
      const answer = await orchestratorApi.retryFailed(from, to, false);
      setResult({ ok: true, text: `Retried ${counted(answer.retried, 'failed execution')}; ${formatNumber(answer.remaining)} still failed in the range.` });
    } catch (error) {
      setResult({ ok: false, text: `Refused: ${(error as Error).message}` });
    }
    matched.reload();
    onDone();
  };
  return (
    <section aria-labelledby="bulk-heading">
      <h2 id="bulk-heading">Retry the failures of this time range</h2>
      {matched.error && <ErrorMessage error={matched.error} retry={matched.reload} what="the failed executions of the range" />}
      {matched.data && (
        <p data-field="bulk-count">
          {counted(matched.data.matched, 'failed execution')} created from {formatDateTime(from)} to {formatDateTime(to)} (diagnostic runs aside). A retry runs
          each again under its tracking id, 100 at a time, oldest first.
        </p>
      )}
      <ConfirmButton
        label={`Retry ${counted(batch, 'failed execution')}`}
        title="Retry the failed executions?"
        confirmLabel="Retry them"
        disabled={batch === 0}
        onConfirm={retry}
      >
        <p>
          {counted(batch, 'failed execution')} created from {formatDateTime(from)} to {formatDateTime(to)} will run again, each calling the AI provider. Their
          owners keep their tracking ids.
        </p>
      </ConfirmButton>
      <Outcome result={result} />
    </section>
  );
}
