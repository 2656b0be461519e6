import { serviceUrl } from '../../shared/config';
import { undici } from '../../shared/http/undici';
import type { Logger } from '../../shared/logging';
import type { PaymentConfig } from './settings';

export interface ReportsLeft {
  limit: number | null;
  used: number;
  remaining: number | null;
  resetsAt: string;
  period: 'billing_period' | 'calendar_month';
}

/**
 * The reports left in the user's billing period, as the orchestrator that enforces the quota counts
 * them (GET {base_url}/api/quota, asked with the user's own token, so it answers for them only).
 * The billing page is still worth showing without it: unreachable or refusing, this answers null.
 */
export async function reportsLeft(cfg: PaymentConfig, log: Logger, authorization: string): Promise<ReportsLeft | null> {
  try {
    const response = await undici().request(`${serviceUrl('orchestrator', cfg)}/api/quota`, {
      headers: { authorization },
      signal: AbortSignal.timeout(cfg.PAYMENT_SYNC_TIMEOUT_MS),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) {
      log.warn('the orchestrator did not answer the reports left', { status: response.statusCode });
      return null;
    }
    return JSON.parse(text) as ReportsLeft;
  } catch (error) {
    log.warn('the orchestrator could not be asked the reports left', { error });
    return null;
  }
}
