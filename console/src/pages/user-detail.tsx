import { useState } from 'preact/hooks';
import { ApiError, identityApi, orchestratorApi, PLANS, type PublicUser, type UserView } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { ConfirmButton } from '../components/confirm';
import { CopyButton } from '../components/copy';
import { PageTitle, StatusBadge } from '../components/layout';
import { Outcome, type Result } from '../components/outcome';
import { formatDateTime, formatDuration } from '../format';
import { paths } from '../paths';
import { executionsHref } from './executions/filters';
import { BillingTimeline } from './billing-timeline';
import { useSignedInUser } from '../session';
import { canChangePlan, canChangeRole, canChangeStatus, canRevokeSessions, type Allowed } from '../permissions';

const ROLES = ['user', 'admin', 'super_admin'];

/** A user: plan, status, role, sessions and audit trail, with the changes the signed-in admin may make. */
export function UserDetail({ id }: { id: string }) {
  const admin = useSignedInUser();
  const user = useAsync(() => identityApi.user(id), [id]);
  const [version, setVersion] = useState(0);
  return (
    <>
      <PageTitle title="User">User</PageTitle>
      <p>
        <a href={paths.users}>Back to users</a>
      </p>
      <AsyncView state={user} what="the user">
        {(data) => (
          <>
            <Account user={data.user} admin={admin} onChanged={() => (user.reload(), setVersion((v) => v + 1))} />
            <BillingTimeline userId={id} />
            <Reports userId={id} />
            <Sessions userId={id} admin={admin} version={version} />
            <AuditTrail userId={id} version={version} />
          </>
        )}
      </AsyncView>
    </>
  );
}

function Refused({ allowed, id }: { allowed: Allowed; id: string }) {
  return allowed.ok ? null : (
    <p class="refused" id={id}>
      {allowed.reason}
    </p>
  );
}

function ChangeForm<T extends string>(props: {
  id: string;
  label: string;
  current: T;
  options: readonly T[];
  allowed: Allowed;
  apply: (value: T) => Promise<string>;
  onChanged: () => void;
  /** For a change that cannot be taken back by the user (deactivation, a role change that ends their sessions): what the dialog says. */
  confirm?: (value: T) => string | undefined;
}) {
  const [value, setValue] = useState<T>(props.current);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result>();
  const save = async () => {
    setBusy(true);
    try {
      setResult({ ok: true, text: await props.apply(value) });
      props.onChanged();
    } catch (e) {
      const error = e as Error;
      setResult({ ok: false, text: `Refused: ${error.message}${error instanceof ApiError ? ` (${error.status} ${error.code})` : ''}` });
    } finally {
      setBusy(false);
    }
  };
  const reasonId = `${props.id}-reason`;
  const warning = value === props.current ? undefined : props.confirm?.(value);
  const disabled = !props.allowed.ok || busy || value === props.current;
  return (
    <form
      class="change"
      onSubmit={(event) => {
        event.preventDefault();
        if (!warning) void save();
      }}
      aria-busy={busy}
    >
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={value}
        disabled={!props.allowed.ok || busy}
        aria-describedby={props.allowed.ok ? undefined : reasonId}
        onChange={(e) => setValue(e.currentTarget.value as T)}
      >
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
      {warning ? (
        <ConfirmButton
          label={`Save ${props.label.toLowerCase()}`}
          title={`Change the ${props.label.toLowerCase()}?`}
          confirmLabel={`Change it to ${value}`}
          danger
          disabled={disabled}
          onConfirm={save}
        >
          <p>{warning}</p>
        </ConfirmButton>
      ) : (
        <button type="submit" disabled={disabled}>
          Save {props.label.toLowerCase()}
        </button>
      )}
      <Refused allowed={props.allowed} id={reasonId} />
      <Outcome result={result} alert />
    </form>
  );
}

/** How the plan was got: its period ends unless a renewal (subscription) moves it on. */
const PLAN_SOURCE_WORDS: Record<NonNullable<UserView['planSource']>, string> = {
  subscription: 'subscription, renews unless cancelled',
  one_off: 'one-off payment, no renewal',
  manual: 'granted by an administrator',
};

function Account({ user, admin, onChanged }: { user: UserView; admin: PublicUser; onChanged: () => void }) {
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">{user.email}</h2>
      <dl class="facts">
        <dt>User id</dt>
        <dd class="id-cell">
          <code>{user.id}</code> <CopyButton value={user.id} what="user id" />
        </dd>
        <dt>Role</dt>
        <dd data-field="role">{user.role}</dd>
        <dt>Plan</dt>
        <dd data-field="plan">
          {user.plan}
          {user.planPeriodEnd ? ` until ${formatDateTime(user.planPeriodEnd)}` : ''}
          {user.planSource ? <span class="muted"> ({PLAN_SOURCE_WORDS[user.planSource]})</span> : null}
        </dd>
        <dt>Status</dt>
        <dd data-field="status">
          <StatusBadge status={user.status} />
        </dd>
        <dt>Created</dt>
        <dd>{formatDateTime(user.createdAt)}</dd>
        <dt>Updated</dt>
        <dd>{formatDateTime(user.updatedAt)}</dd>
        <dt>Explicit permissions</dt>
        <dd>{user.explicitPermissions.length ? user.explicitPermissions.join(', ') : 'none (only the role’s)'}</dd>
      </dl>
      <h3>Changes</h3>
      <div class="changes">
        <ChangeForm
          id="plan"
          label="Plan"
          current={user.plan}
          options={PLANS}
          allowed={canChangePlan(admin, user)}
          apply={async (plan) => `Plan changed to ${(await identityApi.updateUser(user.id, { plan })).user.plan}.`}
          onChanged={onChanged}
        />
        <ChangeForm
          id="status"
          label="Status"
          current={user.status}
          options={['active', 'inactive'] as const}
          allowed={canChangeStatus(admin, user)}
          confirm={(status) => (status === 'inactive' ? `${user.email} can no longer sign in, and every session of theirs ends now.` : undefined)}
          apply={async (status) =>
            `Status changed to ${(await identityApi.updateUser(user.id, { status })).user.status}${status === 'inactive' ? '; the user’s sessions were ended' : ''}.`
          }
          onChanged={onChanged}
        />
        <ChangeForm
          id="role"
          label="Role"
          current={user.role}
          options={ROLES}
          allowed={canChangeRole(admin, user)}
          confirm={(role) => `${user.email} becomes ${role}; every session of theirs ends now, and they sign in again with the new role.`}
          apply={async (roleId) => `Role changed to ${(await identityApi.grantRole(user.id, roleId)).user.role}; the user’s sessions were ended.`}
          onChanged={onChanged}
        />
      </div>
    </section>
  );
}

function Sessions({ userId, admin, version }: { userId: string; admin: PublicUser; version: number }) {
  const sessions = useAsync(() => identityApi.sessions(userId), [userId, version]);
  const [result, setResult] = useState<Result>();
  const allowed = canRevokeSessions(admin);
  const revoke = async (id: string) => {
    try {
      await identityApi.revokeSession(id);
      setResult({ ok: true, text: 'Session ended.' });
      sessions.reload();
    } catch (e) {
      setResult({ ok: false, text: `Refused: ${(e as Error).message}` });
    }
  };
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <Outcome result={result} alert />
      <AsyncView state={sessions} what="sessions">
        {(data) =>
          data.sessions.length === 0 ? (
            <Empty>No sessions.</Empty>
          ) : (
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Last refreshed</th>
                  <th scope="col">Expires</th>
                  <th scope="col">State</th>
                  <th scope="col">Client</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {data.sessions.map((s) => (
                  <tr key={s.id}>
                    <td data-label="Started">{formatDateTime(s.createdAt)}</td>
                    <td data-label="Last refreshed">{formatDateTime(s.lastRefreshedAt)}</td>
                    <td data-label="Expires">{formatDateTime(s.expiresAt)}</td>
                    <td data-label="State">{s.active ? <StatusBadge status="active" /> : <StatusBadge status={s.revokedReason ?? 'ended'} />}</td>
                    <td data-label="Client">
                      {s.ip ?? ''} {s.userAgent ? <span class="muted">{s.userAgent.slice(0, 60)}</span> : null}
                    </td>
                    <td data-label="Action">
                      {s.active && (
                        <ConfirmButton
                          label="End session"
                          title="End this session?"
                          confirmLabel="End the session"
                          danger
                          disabled={!allowed.ok}
                          onConfirm={() => revoke(s.id)}
                        >
                          <p>
                            The session started {formatDateTime(s.createdAt)} ends now: its refresh token stops working and every service refuses its access
                            token within seconds.
                          </p>
                        </ConfirmButton>
                      )}
                      {s.active && !allowed.ok && <span class="muted"> {allowed.reason}</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </AsyncView>
    </section>
  );
}

/** The user's report executions, newest first (the orchestrator's finder, by requester). */
function Reports({ userId }: { userId: string }) {
  const reports = useAsync(() => orchestratorApi.search({ requested_by: userId, sort: 'newest', limit: 10 }), [userId]);
  return (
    <section aria-labelledby="reports-heading">
      <h2 id="reports-heading">Reports</h2>
      <AsyncView state={reports} what="the user’s reports">
        {(data) =>
          data.executions.length === 0 ? (
            <Empty>This user has not ordered a report.</Empty>
          ) : (
            <>
              <table class="stack">
                <thead>
                  <tr>
                    <th scope="col">Tracking id</th>
                    <th scope="col">Company</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col">Duration</th>
                  </tr>
                </thead>
                <tbody>
                  {data.executions.map((e) => (
                    <tr key={e.tracking_id} data-tracking-id={e.tracking_id}>
                      <th scope="row" data-label="Tracking id">
                        <a href={paths.execution(e.tracking_id)}>{e.tracking_id}</a>
                      </th>
                      <td data-label="Company">{e.company_name}</td>
                      <td data-label="Status">
                        <StatusBadge status={e.processing_status} />
                      </td>
                      <td data-label="Created">{formatDateTime(e.created_at)}</td>
                      <td data-label="Duration">{formatDuration(e.duration_ms)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p>
                <a href={executionsHref({ requester: userId })}>All of this user’s reports</a>
              </p>
            </>
          )
        }
      </AsyncView>
    </section>
  );
}

function AuditTrail({ userId, version }: { userId: string; version: number }) {
  const audit = useAsync(() => identityApi.audit({ target: userId, limit: 50 }), [userId, version]);
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit trail</h2>
      <AsyncView state={audit} what="the audit trail">
        {(data) =>
          data.entries.length === 0 ? (
            <Empty>No audit entries name this user.</Empty>
          ) : (
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Action</th>
                  <th scope="col">By</th>
                  <th scope="col">Result</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {data.entries.map((e) => (
                  <tr key={e.id}>
                    <td data-label="When">{formatDateTime(e.timestamp)}</td>
                    <td data-label="Action">{e.action}</td>
                    <td data-label="By">
                      {e.actor.type}
                      {e.actor.id ? `: ${e.actor.id}` : ''}
                    </td>
                    <td data-label="Result">
                      <StatusBadge status={e.result} /> {e.reason}
                    </td>
                    <td data-label="Details">{e.details ? <code class="wrap">{JSON.stringify(e.details).slice(0, 200)}</code> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </AsyncView>
    </section>
  );
}
