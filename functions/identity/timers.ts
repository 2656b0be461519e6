import { timers } from '../../shared/functions';
import { purgeExpired } from './cleanup';
import { identityContext } from './context';
import { expireEndedPlans } from './plan-expiry';

const timer = timers('identity', identityContext);

export const TIMERS = [
  /**
   * Runs once a day per app (the host holds a lease, so scaled-out instances do not repeat it), at
   * 03:17 UTC. Not hourly: each run wakes a paused serverless database, which then stays online for
   * its auto-pause delay (60 minutes), so an hourly run would keep it awake for ever. Expired codes,
   * sessions and rate-limit windows are refused on read whatever their age; this only frees space.
   * Ended paid periods are read as free at once too (planOf); the run writes each one down as an
   * audited change to free, so the users table and the audit log say what is in force.
   */
  timer('cleanup', '0 17 3 * * *', async (ctx) => {
    ctx.log.info('purged expired identity rows', await purgeExpired(ctx));
    ctx.log.info('ended paid periods recorded', await expireEndedPlans(ctx));
  }),
];
