import { useState } from 'preact/hooks';
import { paymentApi, type AccountsAnswer, type AccountState } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { PageTitle, StatusBadge } from '../components/layout';
import { formatDateTime, formatMoney } from '../format';
import { paths } from '../paths';
import { useEmails } from '../users';

const PAGE_SIZE = 25;

/**
 * Accounts that need a person (payment's GET admin/accounts): subscriptions whose renewal failed,
 * with the day their plan goes free, and payments under an open chargeback. Each links to the
 * user's page, where the billing timeline tells the rest.
 */
export function Accounts() {
  return (
    <>
      <PageTitle title="Accounts past due or disputed">Accounts past due or disputed</PageTitle>
      <p>
        A renewal past due keeps the plan through the grace period while Stripe retries the card; after it the plan is free. An open dispute has suspended the
        plan of the payment it is against (when that payment decided it) until the dispute is won. Open a user to see their billing timeline.
      </p>
      <AccountList state="past_due" title="Renewals past due" empty="No subscription is past due." />
      <AccountList state="disputed" title="Open disputes" empty="No payment is under an open dispute." />
    </>
  );
}

function AccountList({ state, title, empty }: { state: AccountState; title: string; empty: string }) {
  const [offset, setOffset] = useState(0);
  const list = useAsync(() => paymentApi.accounts(state, offset, PAGE_SIZE), [state, offset], 60_000);
  const heading = `${state}-heading`;
  return (
    <section aria-labelledby={heading}>
      <h2 id={heading}>{title}</h2>
      <AsyncView state={list} what={title.toLowerCase()}>
        {(data) =>
          data.accounts.length === 0 ? (
            <Empty>{offset === 0 ? empty : 'No more accounts.'}</Empty>
          ) : (
            <>
              <table class="stack" id={`accounts-${state}`}>
                <thead>
                  <tr>
                    <th scope="col">User</th>
                    <th scope="col">Plan</th>
                    <th scope="col">{state === 'past_due' ? 'Past due since' : 'Disputed since'}</th>
                    <th scope="col">{state === 'past_due' ? 'Plan kept until' : 'Amount'}</th>
                    <th scope="col">{state === 'past_due' ? 'Subscription' : 'Payment'}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.accounts.map((a) => (
                    <AccountRow key={`${a.userId}:${a.subscriptionId ?? a.paymentIntentId}`} account={a} />
                  ))}
                </tbody>
              </table>
              {(offset > 0 || data.nextOffset !== null) && (
                <nav class="pager" aria-label={`Pages of ${title.toLowerCase()}`}>
                  <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                    Previous page
                  </button>
                  <button type="button" disabled={data.nextOffset === null} onClick={() => data.nextOffset !== null && setOffset(data.nextOffset)}>
                    Next page
                  </button>
                </nav>
              )}
            </>
          )
        }
      </AsyncView>
    </section>
  );
}

function AccountRow({ account: a }: { account: AccountsAnswer['accounts'][number] }) {
  // Identity's e-mail first: payment knows one only for users it made a Stripe Customer for.
  const email = useEmails([a.userId]).get(a.userId) ?? a.email;
  return (
    <tr data-user-id={a.userId} data-state={a.state}>
      <th scope="row" data-label="User">
        <a href={paths.user(a.userId)}>{email ?? a.userId}</a>
      </th>
      <td data-label="Plan">{a.planType}</td>
      <td data-label="Since">{formatDateTime(a.since)}</td>
      {a.state === 'past_due' ? (
        <td data-label="Plan kept until">
          {formatDateTime(a.graceEndsAt)} {a.graceOver ? <StatusBadge status="grace over" /> : null}
        </td>
      ) : (
        <td data-label="Amount">{a.amount === null || !a.currency ? '—' : formatMoney(a.amount, a.currency)}</td>
      )}
      <td data-label={a.state === 'past_due' ? 'Subscription' : 'Payment'}>
        <code class="wrap">{a.subscriptionId ?? a.paymentIntentId}</code>
      </td>
    </tr>
  );
}
