import { serviceUrl } from '../../../shared/config';
import type { OrchestratorConfig } from '../settings';

/** A report's status URL: the webhook event's statusUrl, and the e-mail's link when there is no page to share (dispatch.ts readyLink). */
export const reportLink = (config: OrchestratorConfig, trackingId: string): string => `${serviceUrl('orchestrator', config)}/api/reports/${trackingId}`;
