/**
 * Where the time of one event goes, measured by the payment bench in the host's own process, one
 * event at a time (no queueing, so the parts add up): the whole webhook over HTTP, the Stripe
 * signature check alone, the call to identity alone (its HTTP, route and SQL), and the time spent
 * inside SQLite statements on either side. Payment's own SQL is the statement time of a whole
 * event less that of an identity call; the rest is what is left of the whole: the webhook's HTTP
 * both ways (the bench's client runs in this process too, as payment's client of identity does in
 * the identity call), routing, JSON, validation, the sync lease logic and logging.
 */
import { request } from 'undici';
import type { Plan } from '../../shared/auth/access-token';
import type { PaymentContext } from '../../functions/payment/context';
import { verifiedEvent } from '../../functions/payment/webhook';
import type { SignedEvent } from './load';

export interface EventProfile {
  eventMicros: number;
  signatureMicros: number;
  identityCallMicros: number;
  identitySqlMicros: number;
  paymentSqlMicros: number;
  restMicros: number;
  samples: number;
}

type Method = (...args: unknown[]) => unknown;

/** Adds up the time spent in better-sqlite3 statements (every query of both services in this process goes through them). */
function sqlClock(): { read(): number; stop(): void } {
  const Database = require('better-sqlite3') as typeof import('better-sqlite3');
  const probe = new Database(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, Method>;
  probe.close();
  let micros = 0;
  const originals = (['run', 'get', 'all'] as const).map((name) => [name, prototype[name]] as const);
  for (const [name, original] of originals) {
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      const start = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        micros += (performance.now() - start) * 1000;
      }
    };
  }
  return {
    read: () => micros,
    stop: () => {
      for (const [name, original] of originals) prototype[name] = original;
    },
  };
}

async function timeEach<T>(items: T[], run: (item: T) => Promise<unknown> | unknown, sql: { read(): number }): Promise<{ micros: number; sqlMicros: number }> {
  const sqlBefore = sql.read();
  const start = performance.now();
  for (const item of items) await run(item);
  return { micros: ((performance.now() - start) * 1000) / items.length, sqlMicros: (sql.read() - sqlBefore) / items.length };
}

/**
 * `events` are fresh signed events (none posted before), at least 3 × `samples`; `users` and `plans`
 * match them. `ctx` is payment's context on the host serving `webhookUrl`: the signature check and
 * the identity call are timed as the webhook makes them.
 */
export async function profileEvent(
  ctx: PaymentContext,
  webhookUrl: string,
  events: SignedEvent[],
  users: { id: string; plan: Plan }[],
  samples: number,
): Promise<EventProfile> {
  const sql = sqlClock();
  try {
    const [warm, whole, signed] = [events.slice(0, samples), events.slice(samples, 2 * samples), events.slice(2 * samples, 3 * samples)];
    const postOne = async (event: SignedEvent) => {
      const response = await request(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
        body: event.body,
      });
      const outcome = (await response.body.json()) as { sync?: { success?: boolean } };
      if (response.statusCode !== 200 || !outcome.sync?.success) throw new Error(`profile event not synced: ${response.statusCode} ${JSON.stringify(outcome)}`);
    };
    await timeEach(warm, postOne, sql);
    const event = await timeEach(whole, postOne, sql);
    const signature = await timeEach(signed, (e) => verifiedEvent(ctx, Buffer.from(e.body), e.signature), sql);
    const identity = await timeEach(
      users.slice(0, samples),
      async (user) => {
        const result = await ctx.identity.updatePlan(user.id, { plan: user.plan, periodEnd: null, source: 'one_off' }, ctx.now());
        if (!result.ok) throw new Error(`identity refused the profile's plan update: ${JSON.stringify(result.failure)}`);
      },
      sql,
    );
    const paymentSql = event.sqlMicros - identity.sqlMicros;
    return {
      eventMicros: event.micros,
      signatureMicros: signature.micros,
      identityCallMicros: identity.micros,
      identitySqlMicros: identity.sqlMicros,
      paymentSqlMicros: paymentSql,
      restMicros: event.micros - signature.micros - identity.micros - paymentSql,
      samples,
    };
  } finally {
    sql.stop();
  }
}
