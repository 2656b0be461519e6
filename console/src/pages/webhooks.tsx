import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { orchestratorApi, type WebhookDelivery, type WebhookDeliveryStatus } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { PageTitle, StatusBadge } from '../components/layout';
import { Outcome, refused, type Result } from '../components/outcome';
import { formatDateTime, formatDuration } from '../format';
import { paths } from '../paths';

const STATUSES: { value: WebhookDeliveryStatus; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'pending', label: 'Retrying' },
  { value: 'failed', label: 'Failed' },
  { value: 'succeeded', label: 'Delivered' },
];

/** Webhook deliveries of every user (GET api/admin/webhooks/deliveries): each try and its answer, and a re-send. */
export function Webhooks() {
  const { query, path, route } = useLocation();
  const status: WebhookDeliveryStatus = STATUSES.some((s) => s.value === query.status) ? (query.status as WebhookDeliveryStatus) : 'all';
  const userId = query.userId || undefined;
  const deliveries = useAsync(() => orchestratorApi.webhookDeliveries({ status, userId, limit: 50 }), [status, userId], 30_000);
  return (
    <>
      <PageTitle title="Webhooks">Webhook deliveries</PageTitle>
      <fieldset class="segmented">
        <legend>Status</legend>
        {STATUSES.map((s) => (
          <label key={s.value}>
            <input
              type="radio"
              name="status"
              value={s.value}
              checked={status === s.value}
              onChange={() => route(`${path}?status=${s.value}${userId ? `&userId=${encodeURIComponent(userId)}` : ''}`, true)}
            />{' '}
            {s.label}
          </label>
        ))}
      </fieldset>
      {userId && (
        <p>
          Deliveries to the endpoints of user <a href={paths.user(userId)}>{userId}</a>. <a href={`${path}?status=${status}`}>All users</a>
        </p>
      )}
      <AsyncView state={deliveries} what="the webhook deliveries">
        {(data) =>
          data.deliveries.length === 0 ? (
            <Empty>No deliveries.</Empty>
          ) : (
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Report</th>
                  <th scope="col">User</th>
                  <th scope="col">Status</th>
                  <th scope="col">Tries</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Next try</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {data.deliveries.map((d) => (
                  <DeliveryRow key={d.id} delivery={d} onChanged={deliveries.reload} />
                ))}
              </tbody>
            </table>
          )
        }
      </AsyncView>
    </>
  );
}

function DeliveryRow({ delivery: d, onChanged }: { delivery: WebhookDelivery; onChanged: () => void }) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Result>();
  const last = d.tries.at(-1);
  const resend = async () => {
    setBusy(true);
    try {
      const after = await orchestratorApi.resendWebhook(d.id);
      setOutcome({ ok: after.status === 'succeeded', text: after.status === 'succeeded' ? 'Delivered.' : `Not delivered: ${after.lastError ?? after.status}` });
      onChanged();
    } catch (error) {
      setOutcome(refused(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <tr>
      <th scope="row" data-label="Event">
        {d.eventType}
        <br />
        <small>{formatDateTime(d.createdAt)}</small>
      </th>
      <td data-label="Report">
        <a href={paths.execution(d.trackingId)}>{d.trackingId}</a>
      </td>
      <td data-label="User">
        <a href={paths.user(d.userId)}>{d.userId}</a>
      </td>
      <td data-label="Status">
        <StatusBadge status={d.status} />
      </td>
      <td data-label="Tries">{d.attempts}</td>
      <td data-label="Last answer">
        {last ? (
          <>
            {last.statusCode ?? 'no answer'} in {formatDuration(last.durationMs)}
            {last.error && (
              <>
                <br />
                <small>{last.error}</small>
              </>
            )}
          </>
        ) : (
          '—'
        )}
      </td>
      <td data-label="Next try">{d.status === 'pending' ? formatDateTime(d.nextAttemptAt) : '—'}</td>
      <td data-label="Action">
        <button type="button" disabled={busy} onClick={() => void resend()} aria-label={`Re-send ${d.eventType} of ${d.trackingId}`}>
          {busy ? 'Re-sending…' : 'Re-send'}
        </button>
        <Outcome result={outcome} />
      </td>
    </tr>
  );
}
