import { serviceUrl } from '../../../shared/config';
import type { OrchestratorConfig } from '../settings';

/**
 * The link a notice gives for a report: its status URL for now (the share page, when it exists,
 * changes this one function).
 */
export const reportLink = (config: OrchestratorConfig, trackingId: string): string => `${serviceUrl('orchestrator', config)}/api/reports/${trackingId}`;
