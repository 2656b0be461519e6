import { boolean, integer, oneOf, text, url } from '../../shared/config/parsers';
import { withDefault, optional, ORC, type Setting } from '../../shared/config/setting-kinds';
import type { Config, ConfigOf } from '../../shared/config';
import type { Platform } from '../../shared/platform';

/** The orchestrator's settings: its queue, reports, the AI provider and the visual service. */
export const ORCHESTRATOR_SETTINGS = {
  // ---- orchestrator ------------------------------------------------------------------------
  ORCHESTRATOR_QUEUE: withDefault(text, 'report-executions', {
    services: ORC,
    deploy: 'app',
    description: 'Storage queue that carries report executions to the queue-triggered runner.',
  }),
  ORCHESTRATOR_REPORTS_CONTAINER: withDefault(text, 'reports', {
    services: ORC,
    deploy: 'tuning',
    description: 'Blob container holding generated PDFs and presentations.',
  }),
  ORCHESTRATOR_DOWNLOAD_LINK_MINUTES: withDefault(integer(1, 7 * 24 * 60), '60', {
    services: ORC,
    deploy: 'tuning',
    description: 'Lifetime of the read-only SAS download links, in minutes.',
  }),
  ORCHESTRATOR_STUCK_MINUTES: withDefault(integer(1, 24 * 60), '30', {
    services: ORC,
    deploy: 'tuning',
    description: 'An execution in processing without progress for this long is failed with a TIMEOUT error by the stuck-execution timer.',
  }),
  ORCHESTRATOR_LEASE_SECONDS: withDefault(integer(10, 3600), '300', {
    services: ORC,
    deploy: 'tuning',
    description:
      'A redelivered queue message takes over a processing execution only after this long without progress (the first run is presumed alive before that).',
  }),
  ORCHESTRATOR_LOG_BATCH_SIZE: withDefault(integer(1, 10_000), '500', { services: ORC, deploy: 'tuning', description: 'Workflow log rows written per batch.' }),
  ORCHESTRATOR_LOG_FLUSH_MS: withDefault(integer(10, 60_000), '250', {
    services: ORC,
    deploy: 'tuning',
    description: 'Longest time a workflow log row waits in memory before its batch is written.',
  }),
  ORCHESTRATOR_AI_PROVIDER: optional(oneOf(['offline', 'openai', 'azure-openai'] as const), {
    services: ORC,
    deploy: 'tuning',
    description:
      'Writer of the report sections: offline (deterministic, from the data), openai (any OpenAI-compatible endpoint) or azure-openai. Default: openai when ORCHESTRATOR_AI_ENDPOINT is set, offline otherwise.',
  }),
  ORCHESTRATOR_AI_ENDPOINT: optional(url, {
    services: ORC,
    deploy: 'app',
    description: 'OpenAI-compatible base URL (https://api.openai.com/v1, a local server) or the Azure OpenAI resource endpoint.',
  }),
  ORCHESTRATOR_AI_API_KEY: optional(text, {
    unresolved: 'unset',
    services: ORC,
    deploy: 'secret',
    description: 'API key of the AI endpoint; for azure-openai the managed identity is used when unset.',
  }),
  ORCHESTRATOR_AI_MODEL: withDefault(text, 'gpt-4o-mini', {
    services: ORC,
    deploy: 'tuning',
    description: 'Model name (OpenAI) or deployment name (Azure OpenAI).',
  }),
  ORCHESTRATOR_AI_API_VERSION: withDefault(text, '2024-10-21', { services: ORC, deploy: 'tuning', description: 'Azure OpenAI api-version.' }),
  ORCHESTRATOR_AI_TIMEOUT_MS: withDefault(integer(100, 600_000), '30000', { services: ORC, deploy: 'tuning', description: 'Deadline of one AI request.' }),
  ORCHESTRATOR_AI_MAX_RETRIES: withDefault(integer(0, 10), '3', {
    services: ORC,
    deploy: 'tuning',
    description: 'Retries of an AI request on 429 (honouring Retry-After), 5xx, timeouts and connection errors, with exponential backoff.',
  }),
  ORCHESTRATOR_AI_MAX_TOKENS: withDefault(integer(50, 16_000), '700', { services: ORC, deploy: 'tuning', description: 'max_tokens of each section request.' }),
  ORCHESTRATOR_VISUAL_TIMEOUT_MS: withDefault(integer(100, 120_000), '15000', {
    services: ORC,
    deploy: 'tuning',
    description: 'Deadline of a call to the visual service; past it the report is produced without visuals.',
  }),
  ORCHESTRATOR_WEBHOOK_ALLOW_PRIVATE: withDefault(boolean, 'false', {
    services: ORC,
    deploy: 'local',
    description:
      'Local only (tests, laptops): webhook endpoints may be http and may resolve to loopback, private, link-local or metadata addresses. Never set in Azure: it opens server-side request forgery.',
  }),
} satisfies Record<string, Setting<unknown>>;

/** The settings orchestrator's code reads: the platform's and its own. */
export type OrchestratorConfig = Config & ConfigOf<typeof ORCHESTRATOR_SETTINGS>;

/** A platform's configuration as orchestrator reads it (a member made from the platform, a host's banner). */
export const orchestratorConfig = (platform: Platform): OrchestratorConfig => platform.settingsOf(ORCHESTRATOR_SETTINGS, 'orchestrator');
