import { useState } from 'preact/hooks';
import { paymentApi, type ReplayAnswer, type ReviewDecision, type UnsyncedPayment } from '../api';
import { AsyncView, Empty, useAsync, type AsyncState } from '../components/async';
import { ConfirmButton, ReasonButton } from '../components/confirm';
import { PageTitle, StatusBadge } from '../components/layout';
import { Outcome, refused, type Result } from '../components/outcome';
import { formatDateTime, formatMoney, formatNumber } from '../format';
import { paths } from '../paths';
import { useEmails } from '../users';

/**
 * Plan syncs still owed to identity: the failed and pending ones, with the replay that
 * `npm run payments:replay -- --apply` runs, and the payments in manual review, which the replay
 * never takes: each is approved or rejected here with a reason, and the decisions are listed.
 */
export function Payments() {
  const list = useAsync(() => paymentApi.unsynced(), [], 30_000);
  const decisions = useAsync(() => paymentApi.decisions(), [], 30_000);
  const reload = () => {
    list.reload();
    decisions.reload();
  };
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
        A successful payment whose plan has not reached identity yet. The retry timer works through pending and failed syncs on its own, and Replay pushes them
        now. A payment in manual review had its plan held back for a person: Replay never takes it; approve or reject it, with a reason.
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
              <p>
                Puts every failed or pending plan sync listed here back to pending and pushes each user’s newest plan to identity now.{' '}
                <strong>Payments in manual review are not included</strong>: each waits for an approval or a rejection below.
              </p>
              <ConfirmButton
                label={replay.busy ? 'Replaying' : `Replay ${retried(data)} plan sync${retried(data) === 1 ? '' : 's'}`}
                title="Replay the plan syncs?"
                confirmLabel="Replay them"
                disabled={replay.busy || retried(data) === 0}
                onConfirm={run}
              >
                <p>
                  {retried(data)} failed or pending payment(s) go back to pending, and each user’s newest paid plan is pushed to identity now, replacing the
                  plan identity holds for them.
                </p>
                <p>The {data.summary.manual_review} payment(s) in manual review are not included: a replay never grants what manual review held back.</p>
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
                    synced, {replay.answer.failedUsers} failed. {replay.answer.manualReview.notReplayed} payment(s) in manual review not included.
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
            <ManualReview payments={data.payments.filter((p) => p.sync.state === 'manual_review')} total={data.summary.manual_review} onDecided={reload} />
            <section aria-labelledby="unsynced-heading">
              <h2 id="unsynced-heading">Failed and pending syncs</h2>
              {!data.failedSyncRecordsAvailable && <p class="error">Table Storage did not answer: the failed-sync records are missing from this list.</p>}
              {data.summary.total === 0 ? (
                <Empty>Every payment is synced with identity.</Empty>
              ) : retriedRows(data.payments).length === 0 ? (
                <Empty>No failed or pending plan sync.</Empty>
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
                      {retriedRows(data.payments).map((p) => (
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
      <Decisions state={decisions} />
    </>
  );
}

const retried = (data: { summary: { pending: number; failed: number } }) => data.summary.pending + data.summary.failed;
const retriedRows = (payments: UnsyncedPayment[]) => payments.filter((p) => p.sync.state !== 'manual_review');

/** The cells both tables of payments start with: the payment, its user, the plan it paid for and the amount. */
function PaymentCells({ payment: p, email }: { payment: UnsyncedPayment; email: string | null | undefined }) {
  return (
    <>
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
    </>
  );
}

function PaymentRow({ payment: p }: { payment: UnsyncedPayment }) {
  const email = useEmails([p.userId]).get(p.userId);
  return (
    <tr data-payment-id={p.paymentIntentId} data-sync-state={p.sync.state}>
      <PaymentCells payment={p} email={email} />
      <td data-label="Sync">
        <StatusBadge status={p.sync.state} />
      </td>
      <td data-label="Attempts">{p.sync.attempts}</td>
      <td data-label="Last error">{p.sync.lastError ?? '—'}</td>
      <td data-label="Next attempt">{formatDateTime(p.sync.nextAttemptAt)}</td>
      <td data-label="Failed-sync record">
        {p.failedSyncRecord
          ? `${p.failedSyncRecord.error}, retry ${p.failedSyncRecord.retryCount}, until ${formatDateTime(p.failedSyncRecord.expiresAt)}`
          : '—'}
      </td>
    </tr>
  );
}

/** Payments whose plan was held back for a person, each with its Approve and Reject (both ask for the reason). */
function ManualReview(props: { payments: UnsyncedPayment[]; total: number; onDecided: () => void }) {
  const [outcome, setOutcome] = useState<Result>();
  const decide = async (work: () => Promise<string>) => {
    try {
      setOutcome({ ok: true, text: await work() });
    } catch (error) {
      setOutcome(refused(error));
    }
    props.onDecided();
  };
  return (
    <section aria-labelledby="review-heading">
      <h2 id="review-heading">Manual review</h2>
      <p>
        A plan held back for a person: a payment this service never created that did not pay its plan’s price, an event that contradicts the payment record,
        retries exhausted, or identity holding a newer plan. Approving pushes the plan to identity now; rejecting leaves the user’s plan as it is. Either way
        your name, the time and your reason are kept.
      </p>
      <Outcome result={outcome} />
      {props.total === 0 ? (
        <Empty>No payment is waiting for a decision.</Empty>
      ) : (
        <div>
          {props.payments.length < props.total && (
            <p class="muted">
              The oldest {props.payments.length} of {props.total} are shown.
            </p>
          )}
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Payment</th>
                <th scope="col">User</th>
                <th scope="col">Plan</th>
                <th scope="col">Amount</th>
                <th scope="col">Held for</th>
                <th scope="col">Decision</th>
              </tr>
            </thead>
            <tbody>
              {props.payments.map((p) => (
                <ReviewRow key={p.paymentIntentId} payment={p} decide={decide} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ReviewRow({ payment: p, decide }: { payment: UnsyncedPayment; decide: (work: () => Promise<string>) => Promise<void> }) {
  const email = useEmails([p.userId]).get(p.userId);
  const plan = p.sync.plan ?? p.planType;
  const what = `${p.paymentIntentId} (${formatMoney(p.amount, p.currency)}, ${plan} for ${email ?? p.userId})`;
  return (
    <tr data-payment-id={p.paymentIntentId} data-sync-state={p.sync.state}>
      <PaymentCells payment={p} email={email} />
      <td data-label="Held for">
        <StatusBadge status={p.sync.state} /> {p.sync.lastError ?? '—'}
      </td>
      <td data-label="Decision">
        <div class="actions">
          <ReasonButton
            label="Approve"
            title={`Approve ${p.paymentIntentId}?`}
            confirmLabel="Approve and push the plan"
            onConfirm={(reason) =>
              decide(async () => {
                const answer = await paymentApi.approve(p.paymentIntentId, reason);
                return answer.sync.success
                  ? `Approved ${p.paymentIntentId}: ${answer.sync.plan ? `identity now has ${answer.sync.plan}` : 'the plan was already up to date'}.`
                  : `Approved ${p.paymentIntentId}, but the push failed: ${answer.sync.error} (${answer.sync.details}); its sync is ${answer.syncState.replace(/_/g, ' ')}.`;
              })
            }
          >
            <p>
              The {plan} plan of {what} is pushed to identity now, replacing the plan identity holds for this user.
            </p>
          </ReasonButton>
          <ReasonButton
            label="Reject"
            title={`Reject ${p.paymentIntentId}?`}
            confirmLabel="Reject it"
            danger
            onConfirm={(reason) =>
              decide(async () => {
                await paymentApi.reject(p.paymentIntentId, reason);
                return `Rejected ${p.paymentIntentId}: the user’s plan is unchanged.`;
              })
            }
          >
            <p>{what} never changes the user’s plan. Refund it in Stripe if the money should go back.</p>
          </ReasonButton>
        </div>
      </td>
    </tr>
  );
}

/** The latest decisions on payments in manual review: who decided, when, and why. */
function Decisions({ state }: { state: AsyncState<{ decisions: ReviewDecision[] }> }) {
  return (
    <section aria-labelledby="decisions-heading">
      <h2 id="decisions-heading">Decisions on manual review</h2>
      <AsyncView state={state} what="the review decisions">
        {(data) =>
          data.decisions.length === 0 ? (
            <Empty>No payment has been approved or rejected yet.</Empty>
          ) : (
            <div>
              <table class="stack">
                <thead>
                  <tr>
                    <th scope="col">Payment</th>
                    <th scope="col">Decision</th>
                    <th scope="col">Plan</th>
                    <th scope="col">By</th>
                    <th scope="col">When</th>
                    <th scope="col">Reason</th>
                    <th scope="col">Held for</th>
                  </tr>
                </thead>
                <tbody>
                  {data.decisions.map((d) => (
                    <tr key={`${d.paymentIntentId}-${d.decidedAt}`} data-decision-for={d.paymentIntentId}>
                      <th scope="row" data-label="Payment">
                        <code class="wrap">{d.paymentIntentId}</code>
                      </th>
                      <td data-label="Decision">
                        <StatusBadge status={d.decision} />
                      </td>
                      <td data-label="Plan">{d.plan ?? '—'}</td>
                      <td data-label="By">{d.decidedBy.email}</td>
                      <td data-label="When">{formatDateTime(d.decidedAt)}</td>
                      <td data-label="Reason">{d.reason}</td>
                      <td data-label="Held for">{d.heldFor ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </AsyncView>
    </section>
  );
}
