import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { op } from '../context';
import { adminDeliveries as adminDeliveriesIn, endpointDeliveries, resendDelivery } from '../notify/deliveries';
import {
  deleteEndpoint as deleteEndpointIn,
  listEndpoints as listEndpointsIn,
  ownEndpoint,
  registerEndpoint,
  rotateSecret as rotateSecretIn,
} from '../notify/endpoints';
import { readPreferences, setPreferences } from '../notify/preferences';
import type * as s from '../schemas';

/** Telling the client a report is ready: the e-mail preference and the webhook endpoints (notify/). */

type EndpointId = Infer<typeof s.WEBHOOK_ENDPOINT_PARAM>;

export const getPreferences = op<LiveUser>('Whether you are e-mailed when a report completes or fails, and the address', async ({ ctx, principal }) =>
  json(200, await readPreferences(ctx, principal.id)),
);

export const putPreferences = op<LiveUser, Infer<typeof s.NOTIFICATION_PREFERENCES_BODY.schema>>(
  'Turns the report e-mails on or off',
  async ({ ctx, principal, body }) => json(200, await setPreferences(ctx, principal, body.email)),
);

export const createEndpoint = op<LiveUser, Infer<typeof s.WEBHOOK_ENDPOINT_BODY.schema>>(
  'Registers an HTTPS endpoint for report.completed and report.failed events (Pro and Enterprise); answers its secret, once',
  async ({ ctx, principal, body }) => json(201, await registerEndpoint(ctx, principal, body)),
);

export const listEndpoints = op<LiveUser>('Your webhook endpoints (without their secrets)', async ({ ctx, principal }) =>
  json(200, await listEndpointsIn(ctx, principal)),
);

export const deleteEndpoint = op<LiveUser, unknown, unknown, EndpointId>('Deletes a webhook endpoint with its deliveries', async ({ ctx, principal, params }) =>
  json(200, await deleteEndpointIn(ctx, principal, params.id)),
);

export const rotateSecret = op<LiveUser, unknown, unknown, EndpointId>(
  'A new signing secret, shown once; the previous one signs too for 24 hours',
  async ({ ctx, principal, params }) => json(200, await rotateSecretIn(ctx, principal, params.id)),
);

export const deliveries = op<LiveUser, unknown, Infer<typeof s.WEBHOOK_DELIVERIES_QUERY>, EndpointId>(
  "An endpoint's deliveries, newest first, each with its tries and the answers",
  async ({ ctx, principal, params, query }) => {
    const endpoint = await ownEndpoint(ctx, principal, params.id);
    return json(200, await endpointDeliveries(ctx, endpoint.id, { limit: query.limit, offset: query.offset }));
  },
);

export const resend = op<LiveUser, unknown, unknown, Infer<typeof s.WEBHOOK_DELIVERY_PARAM>>(
  'Sends a delivery again now, with a fresh retry window (its owner or an admin)',
  async ({ ctx, principal, params }) => json(200, await resendDelivery(ctx, principal, params.id)),
);

export const adminDeliveries = op<LiveUser, unknown, Infer<typeof s.ADMIN_WEBHOOK_DELIVERIES_QUERY>>(
  "Every user's webhook deliveries, newest first, by status and user",
  async ({ ctx, query }) => json(200, await adminDeliveriesIn(ctx, query)),
);
