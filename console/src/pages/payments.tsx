import { useState } from 'preact/hooks';
import { paymentApi, type ReplayAnswer, type UnsyncedPayment } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { ConfirmButton } from '../components/confirm';
import { PageTitle, StatusBadge } from '../components/layout';
import { formatDateTime, formatMoney, formatNumber } from '../format';
import { paths } from '../paths';
import { useEmails } from '../users';

/** Plan syncs still owed to identity (pending, failed, manual review), with the replay that `npm run payments:replay -- --apply` runs. */
export function Payments() {
  const list = useAsync(() => paymentApi.unsynced(), [], 30_000);
  const [replay, setReplay] = useState<{ busy: boolean; answer?: ReplayAnswer; error?: Error }>({ busy: false });
  const run = async () => {
    setReplay({ busy: true });
    try {
      setReplay({ busy: false, answer: await paymentApi.replay() });
    } catch (error) {
      setReplay({ busy: false, error: error as Error });
    }
    list.reload();
  };
  return (
    <>
      <PageTitle title="Payments needing attention">Payments needing attention</PageTitle>
      <p>
        A successful payment whose plan has not reached identity yet. The retry timer works through pending and failed syncs on its own; payments in manual
        review wait for a replay.
      </p>
      <AsyncView state={list} what="payments needing attention">
        {(data) => (
          <>
            <section aria-labelledby="counts-heading">
              <h2 id="counts-heading">Plan syncs owed to identity</h2>
              <dl class="metrics">
                <div>
                  <dt>Pending</dt>
                  <dd data-metric="pending">{formatNumber(data.summary.pending)}</dd>
                </div>
                <div>
                  <dt>Failed (retrying)</dt>
                  <dd data-metric="failed">{formatNumber(data.summary.failed)}</dd>
                </div>
                <div>
                  <dt>Manual review</dt>
                  <dd data-metric="manual-review">{formatNumber(data.summary.manual_review)}</dd>
                </div>
              </dl>
            </section>
            <section aria-labelledby="replay-heading">
              <h2 id="replay-heading">Replay</h2>
              <p>Puts every payment listed here back to pending and pushes each user’s newest plan to identity now.</p>
              <ConfirmButton
                label={replay.busy ? 'Replaying' : `Replay ${data.summary.total} plan sync${data.summary.total === 1 ? '' : 's'}`}
                title="Replay the plan syncs?"
                confirmLabel="Replay them"
                disabled={replay.busy || data.summary.total === 0}
                onConfirm={run}
              >
                <p>
                  {data.summary.total} payment(s) go back to pending, and each user’s newest paid plan is pushed to identity now, replacing the plan identity
                  holds for them.
                </p>
              </ConfirmButton>
              {replay.error && (
                <p class="error" role="alert">
                  Replay failed: {replay.error.message}
                </p>
              )}
              {replay.answer && (
                <div class={replay.answer.success ? 'notice' : 'error'} role="status">
                  <p>
                    Replayed {replay.answer.replayedPayments} payment(s) of {replay.answer.users} user(s): {replay.answer.users - replay.answer.failedUsers}{' '}
                    synced, {replay.answer.failedUsers} failed.
                  </p>
                  <ul>
                    {replay.answer.results.map((r) => (
                      <li key={r.userId}>
                        {r.userId}: {r.success ? `synced${r.plan ? ` (${r.plan})` : ''}` : `${r.error} (${r.details})`}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
            </section>
            <section aria-labelledby="unsynced-heading">
              <h2 id="unsynced-heading">Unsynced payments</h2>
              {!data.failedSyncRecordsAvailable && <p class="error">Table Storage did not answer: the failed-sync records are missing from this list.</p>}
              {data.payments.length === 0 ? (
                <Empty>Every payment is synced with identity.</Empty>
              ) : (
                <div>
                  <table class="stack">
                    <thead>
                      <tr>
                        <th scope="col">Payment</th>
                        <th scope="col">User</th>
                        <th scope="col">Plan</th>
                        <th scope="col">Amount</th>
                        <th scope="col">Sync</th>
                        <th scope="col">Attempts</th>
                        <th scope="col">Last error</th>
                        <th scope="col">Next attempt</th>
                        <th scope="col">Failed-sync record</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.payments.map((p) => (
                        <PaymentRow key={p.paymentIntentId} payment={p} />
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
          </>
        )}
      </AsyncView>
    </>
  );
}

function PaymentRow({ payment: p }: { payment: UnsyncedPayment }) {
  const email = useEmails([p.userId]).get(p.userId);
  return (
    <tr data-payment-id={p.paymentIntentId} data-sync-state={p.sync.state}>
      <th scope="row" data-label="Payment">
        <code class="wrap">{p.paymentIntentId}</code>
        <br />
        <span class="muted">
          {p.status}, {formatDateTime(p.createdAt)}
        </span>
      </th>
      <td data-label="User">
        <a href={paths.user(p.userId)}>{email ?? p.userId}</a>
      </td>
      <td data-label="Plan">{p.sync.plan ?? p.planType}</td>
      <td data-label="Amount">{formatMoney(p.amount, p.currency)}</td>
      <td data-label="Sync">
        <StatusBadge status={p.sync.state} />
      </td>
      <td data-label="Attempts">{p.sync.attempts}</td>
      <td data-label="Last error">{p.sync.lastError ?? '—'}</td>
      <td data-label="Next attempt">{p.sync.state === 'manual_review' ? 'waits for a replay' : formatDateTime(p.sync.nextAttemptAt)}</td>
      <td data-label="Failed-sync record">
        {p.failedSyncRecord
          ? `${p.failedSyncRecord.error}, retry ${p.failedSyncRecord.retryCount}, until ${formatDateTime(p.failedSyncRecord.expiresAt)}`
          : '—'}
      </td>
    </tr>
  );
}
