import { timers } from '../../shared/functions';
import { visualContext } from './context';
import { deleteExpired } from './cache';

const timer = timers('visual', visualContext);

export const TIMERS = [
  // Blob Storage has no expiry of its own: every 15 minutes, the entries past their expiresAt go.
  timer('cache-cleanup', '0 */15 * * * *', async (ctx) => {
    const deleted = await deleteExpired(ctx);
    if (deleted) ctx.log.info('expired cache entries deleted', { deleted });
  }),
];
