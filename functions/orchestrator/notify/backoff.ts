/**
 * When a failed webhook delivery is tried again: one minute after the first try, doubling, at most
 * six hours apart, for three days from the delivery (or from its last re-send); then it is failed.
 * 1, 2, 4 … 256 minutes, then every 6 hours: about 20 tries in all.
 */
export const FIRST_RETRY_MS = 60_000;
export const MAX_RETRY_MS = 6 * 60 * 60_000;
export const RETRY_WINDOW_MS = 3 * 24 * 60 * 60_000;

/** The wait after the `attempts`-th failed try (1-based). */
export const retryDelayMs = (attempts: number): number => Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);

/** When to try again after `attempts` failed tries, or null when that is past the window: the delivery has failed. */
export function nextAttemptAt(windowStart: Date, attempts: number, now: Date, windowMs = RETRY_WINDOW_MS): Date | null {
  const next = new Date(now.getTime() + retryDelayMs(attempts));
  return next.getTime() - windowStart.getTime() > windowMs ? null : next;
}

/** E-mails are retried on the same schedule for one day. */
export const EMAIL_WINDOW_MS = 24 * 60 * 60_000;
