import { useState } from 'preact/hooks';
import { ApiError, identityApi, type Plan, type PublicUser, type UserView } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { PageTitle, StatusBadge } from '../components/layout';
import { formatDateTime } from '../format';
import { paths } from '../paths';
import { useSignedInUser } from '../session';
import { canChangePlan, canChangeRole, canChangeStatus, canRevokeSessions, type Allowed } from '../permissions';

const PLANS: Plan[] = ['free', 'pro', 'enterprise'];
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
            <Sessions userId={id} admin={admin} version={version} />
            <AuditTrail userId={id} version={version} />
          </>
        )}
      </AsyncView>
    </>
  );
}

/** A refusal from identity, shown next to the control: its message and code (SUPER_ADMIN_REQUIRED, LAST_SUPER_ADMIN, ...). */
function Outcome({ result }: { result?: { ok: boolean; message: string } }) {
  if (!result) return null;
  return (
    <p class={result.ok ? 'notice' : 'error'} role={result.ok ? 'status' : 'alert'}>
      {result.message}
    </p>
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
}) {
  const [value, setValue] = useState<T>(props.current);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string }>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      setResult({ ok: true, message: await props.apply(value) });
      props.onChanged();
    } catch (e) {
      const error = e as Error;
      setResult({ ok: false, message: `Refused: ${error.message}${error instanceof ApiError ? ` (${error.status} ${error.code})` : ''}` });
    } finally {
      setBusy(false);
    }
  };
  const reasonId = `${props.id}-reason`;
  return (
    <form class="change" onSubmit={submit} aria-busy={busy}>
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
      <button type="submit" disabled={!props.allowed.ok || busy || value === props.current}>
        Save {props.label.toLowerCase()}
      </button>
      <Refused allowed={props.allowed} id={reasonId} />
      <Outcome result={result} />
    </form>
  );
}

function Account({ user, admin, onChanged }: { user: UserView; admin: PublicUser; onChanged: () => void }) {
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">{user.email}</h2>
      <dl class="facts">
        <dt>User id</dt>
        <dd>
          <code>{user.id}</code>
        </dd>
        <dt>Role</dt>
        <dd data-field="role">{user.role}</dd>
        <dt>Plan</dt>
        <dd data-field="plan">{user.plan}</dd>
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
          apply={async (roleId) => `Role changed to ${(await identityApi.grantRole(user.id, roleId)).user.role}; the user’s sessions were ended.`}
          onChanged={onChanged}
        />
      </div>
    </section>
  );
}

function Sessions({ userId, admin, version }: { userId: string; admin: PublicUser; version: number }) {
  const sessions = useAsync(() => identityApi.sessions(userId), [userId, version]);
  const [result, setResult] = useState<{ ok: boolean; message: string }>();
  const allowed = canRevokeSessions(admin);
  const revoke = async (id: string) => {
    try {
      await identityApi.revokeSession(id);
      setResult({ ok: true, message: 'Session ended.' });
      sessions.reload();
    } catch (e) {
      setResult({ ok: false, message: `Refused: ${(e as Error).message}` });
    }
  };
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <Outcome result={result} />
      <AsyncView state={sessions} what="sessions">
        {(data) =>
          data.sessions.length === 0 ? (
            <Empty>No sessions.</Empty>
          ) : (
            <table>
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
                    <td>{formatDateTime(s.createdAt)}</td>
                    <td>{formatDateTime(s.lastRefreshedAt)}</td>
                    <td>{formatDateTime(s.expiresAt)}</td>
                    <td>{s.active ? <StatusBadge status="active" /> : <StatusBadge status={s.revokedReason ?? 'ended'} />}</td>
                    <td>
                      {s.ip ?? ''} {s.userAgent ? <span class="muted">{s.userAgent.slice(0, 60)}</span> : null}
                    </td>
                    <td>
                      {s.active && (
                        <button type="button" disabled={!allowed.ok} title={allowed.reason} onClick={() => void revoke(s.id)}>
                          End session
                        </button>
                      )}
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
            <table>
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
                    <td>{formatDateTime(e.timestamp)}</td>
                    <td>{e.action}</td>
                    <td>
                      {e.actor.type}
                      {e.actor.id ? `: ${e.actor.id}` : ''}
                    </td>
                    <td>
                      <StatusBadge status={e.result} /> {e.reason}
                    </td>
                    <td>{e.details ? <code>{JSON.stringify(e.details).slice(0, 200)}</code> : '—'}</td>
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
