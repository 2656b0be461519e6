import type { Selectable } from 'kysely';
import { sqlWorkStateOrBusy } from '../../../shared/sql/idle';
import { first, isDuplicateKey, toIso } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import type { NotifyEventsTable } from '../db/tables';
import { clientFailureMessage } from '../report/status';
import { endShare, shareReport } from '../share/shares';
import { findExecution } from '../workflow/executions';
import { EXECUTIONS_WORK } from '../workflow/stuck';
import { EMAIL_WINDOW_MS, nextAttemptAt } from './backoff';
import { attemptAll, dueDeliveries } from './deliveries';
import { reportNotice } from './email';
import { type EventData, markNotifyWork, newId, NOTIFY_WORK } from './events';
import { reportLink } from './links';
import { hasWebhooks } from './policy';
import { noticeAddress } from './preferences';

type Ctx = Pick<OrchestratorContext, 'db' | 'now' | 'config' | 'log' | 'mailer' | 'reports'>;
type NotifyEvent = Selectable<NotifyEventsTable>;

/** How long a claimed event is held: past it (the instance died) another dispatcher takes it. */
const CLAIM_MS = 5 * 60_000;
const truthy = (value: number | boolean) => value === true || value === 1;

/** The webhook body of an event: { id, type, created, data: { trackingId, status, company, statusUrl, error? } }. */
export function eventBody(ctx: Pick<Ctx, 'config'>, event: Pick<NotifyEvent, 'id' | 'type' | 'created_at' | 'tracking_id' | 'data'>): string {
  const data = JSON.parse(event.data) as EventData;
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created: Math.floor(Date.parse(toIso(event.created_at)!) / 1000),
    data: {
      trackingId: event.tracking_id,
      status: data.status,
      company: data.company,
      statusUrl: reportLink(ctx.config, event.tracking_id),
      ...(data.status === 'failed' ? { error: clientFailureMessage(data.errorPattern ?? null, data.byOwner === true) } : {}),
    },
  });
}

/** One delivery per endpoint the user has (a Pro or Enterprise report only), each due now; a repeat makes none twice. */
async function fanOut(ctx: Ctx, event: NotifyEvent, now: Date): Promise<void> {
  if (hasWebhooks(event.plan)) {
    const endpoints = await ctx.db.selectFrom('orchestrator_webhook_endpoints').select('id').where('user_id', '=', event.user_id).execute();
    const payload = eventBody(ctx, event);
    for (const endpoint of endpoints) {
      try {
        await ctx.db
          .insertInto('orchestrator_webhook_deliveries')
          .values({
            id: newId('wd'),
            endpoint_id: endpoint.id,
            user_id: event.user_id,
            event_id: event.id,
            event_type: event.type,
            tracking_id: event.tracking_id,
            payload,
            status: 'pending',
            next_attempt_at: now.toISOString(),
            window_started_at: now.toISOString(),
            last_status_code: null,
            last_error: null,
            created_at: now.toISOString(),
            updated_at: now.toISOString(),
          })
          .execute();
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    }
  }
  await ctx.db.updateTable('orchestrator_notify_events').set({ webhooks_done: 1 }).where('id', '=', event.id).execute();
}

/** How long the link a "report ready" e-mail carries opens the report's page (the owner revokes it earlier if they wish). */
export const NOTICE_SHARE_DAYS = 7;

/**
 * The link a "report ready" e-mail gives: a share link of the report's web page (readable on any
 * device without signing in; listed to the owner with its views, revocable), else, for a report
 * without page data, its status URL.
 */
async function readyLink(ctx: Ctx, trackingId: string): Promise<{ link: string; shareId?: string }> {
  const execution = await findExecution(ctx, trackingId);
  const share = execution ? await shareReport(ctx, execution, NOTICE_SHARE_DAYS).catch(() => null) : null;
  return share ? { link: share.url, shareId: share.shareId } : { link: reportLink(ctx.config, trackingId) };
}

/** The e-mail of an event: sent, skipped (opted out, no address), or failed after a day of retries. */
async function email(ctx: Ctx, event: NotifyEvent, now: Date): Promise<{ state: NotifyEvent['email_state']; next?: Date; error?: string }> {
  const to = await noticeAddress(ctx, event.user_id);
  if (!to) return { state: 'skipped' };
  const data = JSON.parse(event.data) as EventData;
  const { link, shareId } = data.status === 'completed' ? await readyLink(ctx, event.tracking_id) : { link: reportLink(ctx.config, event.tracking_id) };
  const notice = reportNotice(to, {
    status: data.status,
    company: data.company,
    trackingId: event.tracking_id,
    link,
    shareDays: shareId ? NOTICE_SHARE_DAYS : undefined,
    ...(data.locale ? { locale: data.locale } : {}),
    ...(data.status === 'failed' ? { error: clientFailureMessage(data.errorPattern ?? null, data.byOwner === true, data.locale) } : {}),
  });
  try {
    await ctx.mailer.send(notice);
    return { state: 'sent' };
  } catch (error) {
    // A link no e-mail carried is ended at once; the next try makes its own.
    if (shareId) await endShare(ctx, event.tracking_id, shareId);
    // The message names the transport's failure, never the e-mail's text or address.
    const message = ((error as Error).message ?? String(error)).slice(0, 300);
    const next = nextAttemptAt(new Date(toIso(event.created_at)!), event.email_attempts + 1, now, EMAIL_WINDOW_MS);
    return next ? { state: 'pending', next, error: message } : { state: 'failed', error: message };
  }
}

/**
 * Handles a due event once (claimed by compare-and-set, so two dispatchers never both handle it):
 * its webhook deliveries are made, its e-mail sent or scheduled again. A failure here is the
 * notice's, recorded and retried; the report it tells of is already finished.
 */
export async function processEvent(ctx: Ctx, event: NotifyEvent): Promise<boolean> {
  const now = ctx.now();
  const claimed = await ctx.db
    .updateTable('orchestrator_notify_events')
    .set({ version: event.version + 1, next_at: new Date(now.getTime() + CLAIM_MS).toISOString() })
    .where('id', '=', event.id)
    .where('state', '=', 'pending')
    .where('version', '=', event.version)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return false;
  if (!truthy(event.webhooks_done)) await fanOut(ctx, event, now);
  const mail = event.email_state === 'pending' ? await email(ctx, event, now) : { state: event.email_state };
  const pending = mail.state === 'pending';
  await ctx.db
    .updateTable('orchestrator_notify_events')
    .set({
      state: pending ? 'pending' : 'done',
      email_state: mail.state,
      ...(event.email_state === 'pending' && mail.state !== 'skipped' ? { email_attempts: event.email_attempts + 1 } : {}),
      ...('error' in mail && mail.error ? { email_error: mail.error } : {}),
      next_at: ('next' in mail && mail.next ? mail.next : now).toISOString(),
    })
    .where('id', '=', event.id)
    .where('version', '=', event.version + 1)
    .execute();
  if (pending) await markNotifyWork(now).catch(() => undefined);
  ctx.log.info('report notice handled', { eventId: event.id, trackingId: event.tracking_id, type: event.type, email: mail.state });
  return true;
}

function dueEvents(ctx: Pick<Ctx, 'db'>, now: Date, trackingId?: string, limit = 50): Promise<NotifyEvent[]> {
  let query = ctx.db
    .selectFrom('orchestrator_notify_events')
    .selectAll()
    .where('state', '=', 'pending')
    .where('next_at', '<=', now.toISOString())
    .orderBy('next_at');
  if (trackingId) query = query.where('tracking_id', '=', trackingId);
  return first(ctx.db, query, limit).execute();
}

/** One pass: due events handled, then due deliveries tried. */
export async function dispatchNotifications(ctx: Ctx, now = ctx.now()): Promise<{ events: number; deliveries: number }> {
  let events = 0;
  for (const event of await dueEvents(ctx, now))
    if (await processEvent(ctx, event).catch((error) => void ctx.log.warn('report notice failed', { eventId: event.id, error }))) events++;
  const deliveries = await attemptAll(ctx, await dueDeliveries(ctx, ctx.now()));
  return { events, deliveries };
}

/**
 * Right after a run finished an execution: its notice is handled and its first webhook tries made
 * in the same invocation, so the client hears at once; whatever fails is left to the timer.
 */
export async function notifyFinished(ctx: Ctx, trackingId: string): Promise<void> {
  try {
    const events = await dueEvents(ctx, ctx.now(), trackingId);
    for (const event of events) await processEvent(ctx, event);
    if (events.length)
      await attemptAll(
        ctx,
        await dueDeliveries(
          ctx,
          ctx.now(),
          events.map((e) => e.id),
        ),
      );
  } catch (error) {
    ctx.log.warn('report notice deferred to the timer', { trackingId, error });
  }
}

async function nothingPending(ctx: Pick<Ctx, 'db'>): Promise<boolean> {
  const event = await first(
    ctx.db,
    ctx.db.selectFrom('orchestrator_notify_events').select('id').where('state', '=', 'pending').orderBy('id'),
    1,
  ).executeTakeFirst();
  if (event) return false;
  const delivery = await first(
    ctx.db,
    ctx.db.selectFrom('orchestrator_webhook_deliveries').select('id').where('status', '=', 'pending').orderBy('id'),
    1,
  ).executeTakeFirst();
  return !delivery;
}

/**
 * The timer's run (every minute): skips SQL while neither notices nor executions may be pending (a
 * paused serverless database stays asleep), else dispatches and marks the notices idle when none is left.
 */
export async function sweepNotifications(ctx: Ctx, now = ctx.now()): Promise<{ events: number; deliveries: number }> {
  const [notify, executions] = await Promise.all([sqlWorkStateOrBusy(NOTIFY_WORK, now), sqlWorkStateOrBusy(EXECUTIONS_WORK, now)]);
  if (notify.idle && executions.idle) return { events: 0, deliveries: 0 };
  const done = await dispatchNotifications(ctx, now);
  if (await nothingPending(ctx)) await notify.markIdle({}, now).catch(() => false);
  return done;
}
