import { useLocation } from 'preact-iso';
import { PLAN_IDS } from '../../../shared/plan-ids';
import { useDraft, withQuery } from '../address';
import { identityApi } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { PageTitle, StatusBadge } from '../components/layout';
import { formatDateTime, formatNumber } from '../format';
import { paths } from '../paths';

const PAGE_SIZE = 25;
const ROLES = ['', 'user', 'admin', 'super_admin'];
const PLANS = ['', ...PLAN_IDS];
const STATUSES = ['', 'active', 'inactive'];

/** Users from identity's admin API: search by email, filter by role, plan and status, page by 25. */
export function Users() {
  const { query, path, route } = useLocation();
  const filters = { email: query.email ?? '', role: query.role ?? '', plan: query.plan ?? '', status: query.status ?? '' };
  const offset = Math.max(0, Number.parseInt(query.offset ?? '0', 10) || 0);
  const [draft, setDraft] = useDraft(filters, withQuery('', filters));
  const users = useAsync(
    () => identityApi.users({ ...filters, limit: PAGE_SIZE, offset }),
    [filters.email, filters.role, filters.plan, filters.status, offset],
  );

  const go = (next: Partial<typeof filters> & { offset?: number }) => route(withQuery(path, { ...filters, offset: 0, ...next }), true);
  // A choice applies with the Search button, not on each change (arrow keys through a list would load it at every step).
  const select = (id: string, label: string, key: 'role' | 'plan' | 'status', options: string[]) => (
    <div>
      <label for={id}>{label}</label>
      <select id={id} value={draft[key]} onChange={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })}>
        {options.map((o) => (
          <option key={o} value={o}>
            {o || 'any'}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <>
      <PageTitle title="Users">Users</PageTitle>
      <form
        class="filters"
        role="search"
        aria-label="Find users"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...draft, email: draft.email.trim() });
        }}
      >
        <div>
          <label for="user-email">Email contains</label>
          <input id="user-email" type="search" maxLength={320} value={draft.email} onInput={(e) => setDraft({ ...draft, email: e.currentTarget.value })} />
        </div>
        {select('user-role', 'Role', 'role', ROLES)}
        {select('user-plan', 'Plan', 'plan', PLANS)}
        {select('user-status', 'Status', 'status', STATUSES)}
        <button type="submit">Search</button>
      </form>
      <AsyncView state={users} what="users">
        {(data) =>
          data.users.length === 0 ? (
            <Empty>No user matches.</Empty>
          ) : (
            <>
              <p>
                {formatNumber(data.total)} users; showing {offset + 1}-{offset + data.users.length}.
              </p>
              <table class="stack">
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Plan</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {data.users.map((u) => (
                    <tr key={u.id} data-user-id={u.id}>
                      <th scope="row" data-label="Email">
                        <a href={paths.user(u.id)}>{u.email}</a>
                      </th>
                      <td data-label="Role">{u.role}</td>
                      <td data-label="Plan">{u.plan}</td>
                      <td data-label="Status">
                        <StatusBadge status={u.status} />
                      </td>
                      <td data-label="Created">{formatDateTime(u.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <nav class="pager" aria-label="Pages of users">
                <button type="button" disabled={offset === 0} onClick={() => go({ offset: Math.max(0, offset - PAGE_SIZE) })}>
                  Previous page
                </button>
                <button type="button" disabled={offset + PAGE_SIZE >= data.total} onClick={() => go({ offset: offset + PAGE_SIZE })}>
                  Next page
                </button>
              </nav>
            </>
          )
        }
      </AsyncView>
    </>
  );
}
