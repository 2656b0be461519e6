import { timer } from '../../shared/functions';
import { deleteExpired } from './cache';

export const TIMERS = [
  // Blob Storage has no expiry of its own: every 15 minutes, the entries past their expiresAt go.
  timer('visual', 'cache-cleanup', '0 */15 * * * *', async (log) => {
    const deleted = await deleteExpired();
    if (deleted) log.info('expired cache entries deleted', { deleted });
  }),
];
