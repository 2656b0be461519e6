import { CANCELLED } from './error-classification';

/**
 * How a cancelled execution's error message names who cancelled it, and how it is read back: the
 * owner's own cancel is told to them (status, e-mail, webhook) as their decision, not as a failure.
 */

/** Who cancelled an execution: an administrator (the admin API) or its owner (POST api/reports/{trackingId}/cancel). */
export type CancelledBy = 'an administrator' | 'its owner';

const prefix = (who: CancelledBy) => `Cancelled by ${who} (`;

/** The error message of an execution `who` cancelled (`by`: the actor's e-mail or id). */
export const cancelMessage = (who: CancelledBy, by: string): string => `${prefix(who)}${by})`;

/** Whether the owner cancelled the execution themselves. */
export const cancelledByOwner = (execution: { error_pattern: string | null; error_message: string | null }): boolean =>
  execution.error_pattern === CANCELLED && (execution.error_message?.startsWith(prefix('its owner')) ?? false);
