import type { Plan } from '../../../shared/plan-ids';
import { badRequest, Code } from '../../../shared/http/errors';
import type { OrchestratorConfig } from '../settings';
import { EndpointRefused, type UrlPolicy } from './endpoint-url';

/** The plans whose users may register webhook endpoints (and whose reports are sent to them). */
export const WEBHOOK_PLANS: readonly Plan[] = ['pro', 'enterprise'];
export const hasWebhooks = (plan: string) => (WEBHOOK_PLANS as readonly string[]).includes(plan);

/** Endpoints a user may have at once. */
export const MAX_ENDPOINTS = 5;

/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60_000;

export const urlPolicy = (config: Pick<OrchestratorConfig, 'ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE'>): UrlPolicy => ({
  allowPrivate: config.ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE,
});

/** A refused URL as the API answers it: 400 WEBHOOK_URL_INVALID or WEBHOOK_URL_NOT_ALLOWED (with the kind of address). */
export function refusedUrl(error: EndpointRefused) {
  return error.reason === 'invalid'
    ? badRequest(error.message, Code.WEBHOOK_URL_INVALID)
    : badRequest(error.message, Code.WEBHOOK_URL_NOT_ALLOWED, { kind: error.kind ?? error.reason });
}
