/** The console's own path (`/orchestrator/console/`), from the page's <base href>. */
export const BASE = new URL(document.baseURI).pathname.replace(/\/?$/, '/');

export const paths = {
  overview: BASE,
  executions: `${BASE}executions`,
  execution: (trackingId: string) => `${BASE}executions/${encodeURIComponent(trackingId)}`,
  failures: `${BASE}failures`,
  users: `${BASE}users`,
  user: (id: string) => `${BASE}users/${encodeURIComponent(id)}`,
  payments: `${BASE}payments`,
  accounts: `${BASE}accounts`,
  webhooks: `${BASE}webhooks`,
  diagnostics: `${BASE}diagnostics`,
};
