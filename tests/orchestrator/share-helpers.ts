import type { TestHost } from '../helpers/host';
import { bearer } from '../helpers/identity';
import { ACME, finishedReport } from './helpers';
import type { ReportRequest } from '../../functions/orchestrator/report/submission';

/** The company name the shared-page tests carry through: Polish, German, Greek and Cyrillic letters in one. */
export const UNICODE_COMPANY = 'Łódź Zürich Ωmega Аналитика';
export const UNICODE_REQUEST: ReportRequest = { ...ACME, company_name: UNICODE_COMPANY };

export interface ShareCreated {
  success: boolean;
  shareId: string;
  trackingId: string;
  status: string;
  token: string;
  url: string;
  pdfUrl: string;
  createdAt: string;
  expiresAt: string;
  views: number;
}

/** Requests a report over HTTP as `token`'s user and waits until it has completed; answers its tracking id. */
export async function completedReport(host: TestHost, token: string, request: ReportRequest = UNICODE_REQUEST): Promise<string> {
  const status = await finishedReport<{ status: string; trackingId: string }>(host, token, request);
  if (status.status !== 'completed') throw new Error(`report ${status.trackingId} ${status.status}`);
  return status.trackingId;
}

/** POST api/reports/{trackingId}/shares as `token`'s user (a raw body when given as text). */
export const postShare = (host: TestHost, token: string, trackingId: string, body: unknown) =>
  host.fetch(`/orchestrator/api/reports/${trackingId}/shares`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(token) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

export async function createShare(host: TestHost, token: string, trackingId: string, expiresInDays = 7): Promise<ShareCreated> {
  const response = await postShare(host, token, trackingId, { expiresInDays });
  if (response.status !== 201) throw new Error(`share answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as ShareCreated;
}

export const revokeShare = (host: TestHost, token: string, trackingId: string, shareId: string) =>
  host.fetch(`/orchestrator/api/reports/${trackingId}/shares/${shareId}/revoke`, { method: 'POST', headers: bearer(token) });

export const listShares = (host: TestHost, token: string, trackingId: string) =>
  host.fetch(`/orchestrator/api/reports/${trackingId}/shares`, { headers: bearer(token) });
