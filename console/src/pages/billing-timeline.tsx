import { paymentApi, type TimelineEntry } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { StatusBadge } from '../components/layout';
import { formatDateTime, formatMoney } from '../format';

const KIND_LABELS: Record<TimelineEntry['kind'], string> = {
  payment: 'Payment',
  invoice: 'Invoice',
  subscription: 'Subscription',
  refund: 'Refund',
  dispute: 'Dispute',
};

/** What the entry did to the plan, as payment recorded it; a dash where nothing is recorded. */
function Effect({ entry }: { entry: TimelineEntry }) {
  const e = entry.effect;
  if (!e) return <>—</>;
  return (
    <>
      {e.plan ? <strong>plan → {e.plan}</strong> : null} {e.note}
    </>
  );
}

/** A subscription's state in one cell: the plan and interval, the period end, a cancellation, a renewal past due and its grace. */
function Details({ entry }: { entry: TimelineEntry }) {
  const s = entry.subscription;
  const plan = entry.planType ? `${entry.planType}${s?.interval ? ` by the ${s.interval}` : ''}` : null;
  return (
    <>
      {plan}
      {entry.periodEnd ? <span class="muted"> · period ends {formatDateTime(entry.periodEnd)}</span> : null}
      {s?.cancelAtPeriodEnd ? <span> · cancels at the period end</span> : null}
      {s?.graceEndsAt ? (
        <span>
          {' '}
          · past due since {formatDateTime(s.pastDueSince)}, plan kept until {formatDateTime(s.graceEndsAt)}
        </span>
      ) : null}
    </>
  );
}

/**
 * The user's billing, newest first (payment's GET admin/users/{id}/billing): payments, Stripe's
 * invoices, the subscription's state, refunds and disputes, each with what it did to the plan.
 */
export function BillingTimeline({ userId }: { userId: string }) {
  const timeline = useAsync(() => paymentApi.billing(userId), [userId]);
  return (
    <section aria-labelledby="billing-heading">
      <h2 id="billing-heading">Billing</h2>
      <AsyncView state={timeline} what="the billing timeline">
        {(data) => (
          <>
            {!data.stripeAvailable && <p class="error">Stripe did not answer: invoices and billing intervals are missing from this timeline.</p>}
            {data.subscription ? (
              <p data-subscription-status={data.subscription.status}>
                Subscription <code>{data.subscription.id}</code>: <StatusBadge status={data.subscription.status} /> {data.subscription.planType}
                {data.subscription.interval ? ` by the ${data.subscription.interval}` : ''}, period ends {formatDateTime(data.subscription.currentPeriodEnd)}
                {data.subscription.cancelAtPeriodEnd ? ', cancels at the period end' : ''}
                {data.subscription.graceEndsAt ? `; renewal past due, plan kept until ${formatDateTime(data.subscription.graceEndsAt)}` : ''}.
              </p>
            ) : (
              <p>No subscription.</p>
            )}
            {data.entries.length === 0 ? (
              <Empty>This user has never paid.</Empty>
            ) : (
              <table class="stack" id="billing-timeline">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">What</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                    <th scope="col">Details</th>
                    <th scope="col">Plan</th>
                  </tr>
                </thead>
                <tbody>
                  {data.entries.map((e) => (
                    <tr key={`${e.kind}:${e.id}`} data-kind={e.kind} data-id={e.id}>
                      <td data-label="When">{formatDateTime(e.at)}</td>
                      <th scope="row" data-label="What">
                        {KIND_LABELS[e.kind]}
                        <br />
                        <code class="wrap muted">{e.id}</code>
                      </th>
                      <td data-label="Amount">{e.amount === null || !e.currency ? '—' : formatMoney(e.amount, e.currency)}</td>
                      <td data-label="Status">
                        <StatusBadge status={e.status} />
                      </td>
                      <td data-label="Details">
                        <Details entry={e} />
                      </td>
                      <td data-label="Plan">
                        <Effect entry={e} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </AsyncView>
    </section>
  );
}
