import { identityApi, orchestratorApi, type SearchAnswer } from '../../api';
import { rangeOf, type Filters } from './filters';

/** A page of executions; `noRequester`: the email searched for matches no user, so nothing was asked of the orchestrator. */
export type Found = SearchAnswer & { noRequester?: boolean };

const noRequester = (): Found => ({ success: true, generated_at: new Date().toISOString(), filters: {}, executions: [], next_cursor: null, noRequester: true });

/** The page of executions the filters ask for; an email is first turned into the ids of the users it matches (at identity). */
export async function find(filters: Filters): Promise<Found> {
  const q = filters.q.trim();
  let requestedBy: string | undefined = filters.requester || undefined;
  if (filters.field === 'email' && q) {
    const users = await identityApi.users({ email: q, limit: 25 });
    if (users.users.length === 0) return noRequester();
    const ids = users.users.map((u) => u.id).filter((id) => !filters.requester || id === filters.requester);
    if (ids.length === 0) return noRequester();
    requestedBy = ids.join(',');
  }
  return orchestratorApi.search({
    tracking_id: filters.field === 'tracking' && q ? q : undefined,
    company: filters.field === 'company' && q ? q : undefined,
    requested_by: requestedBy,
    status: filters.status,
    error: filters.error || undefined,
    ...rangeOf(filters),
    sort: filters.sort,
    limit: filters.limit,
    cursor: filters.cursor || undefined,
  });
}
