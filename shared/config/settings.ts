import { boolean, integer, json, listOf, oneOf, origins, secret, text, url, type Parser } from './parsers';

export const SERVICE_NAMES = ['identity', 'payment', 'orchestrator', 'visual'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * Where a setting comes from in Azure, which the Bicep parity test checks:
 * - `app`: a plain app setting the Bicep must set for the services that read it;
 * - `secret`: a Key Vault reference the Bicep must set;
 * - `tuning`: has a sensible default; the Bicep may leave it out;
 * - `platform`: set by Azure itself (for example WEBSITE_HOSTNAME);
 * - `local`: laptops and tests only, never set in Azure.
 */
export type Deploy = 'app' | 'secret' | 'tuning' | 'platform' | 'local';

export interface Setting<T> {
  /** The services whose code reads the setting; `all` for cross-cutting settings. */
  services: readonly ServiceName[] | 'all';
  description: string;
  /** default: an embedded default is used when unset; required: start-up fails when unset; optional: undefined when unset. */
  kind: 'default' | 'required' | 'optional';
  default?: string;
  deploy: Deploy;
  /**
   * 'unset': a Key Vault reference that did not resolve counts as unset (only the feature that needs
   * it is off). Only for secrets whose absence closes something (payments, SMTP, the AI key), never
   * for one whose absence opens a route (VISUAL_API_TOKEN): otherwise the services reading it stop.
   */
  unresolved?: 'unset';
  parse: Parser<T>;
}

interface Meta {
  services: readonly ServiceName[] | 'all';
  description: string;
  deploy: Deploy;
  unresolved?: 'unset';
}

function withDefault<T>(parse: Parser<T>, value: string, meta: Meta): Setting<T> {
  return { ...meta, kind: 'default', default: value, parse };
}
function required<T>(parse: Parser<T>, meta: Meta): Setting<T> {
  return { ...meta, kind: 'required', parse };
}
function optional<T>(parse: Parser<T>, meta: Meta): Setting<T | undefined> {
  return { ...meta, kind: 'optional', parse };
}

const ALL = 'all' as const;
const ID = ['identity'] as const;
const PAY = ['payment'] as const;
const VIS = ['visual'] as const;
const ORC = ['orchestrator'] as const;

/** Every setting any service reads. The README's configuration table and the Bicep parity test are checked against this list. */
export const SETTINGS = {
  // ---- platform ----------------------------------------------------------------------------
  SERVICES: withDefault(listOf(SERVICE_NAMES), SERVICE_NAMES.join(','), {
    services: ALL,
    deploy: 'app',
    description: 'Comma list of the services this Function App serves.',
  }),
  PUBLIC_URL: optional(url, {
    services: ALL,
    deploy: 'tuning',
    description:
      'Public base URL of this host. Defaults to https://<WEBSITE_HOSTNAME> in Azure, http://localhost:<port> under Core Tools and the dev host address under npm start.',
  }),
  WEBSITE_HOSTNAME: optional(text, {
    services: ALL,
    deploy: 'platform',
    description: 'Host name Azure assigns to the Function App. Core Tools sets localhost:<port>, which counts as local (http, offline Stripe).',
  }),
  WEBSITE_SITE_NAME: optional(text, {
    services: ALL,
    deploy: 'platform',
    description: 'Name of the Function App; its cloud role name in Application Insights (report-platform when unset).',
  }),
  IDENTITY_URL: optional(url, {
    services: ['payment', 'orchestrator'],
    deploy: 'app',
    description: 'Base URL of the identity service ({auth_url}); defaults to <PUBLIC_URL>/identity.',
  }),
  PAYMENT_URL: optional(url, {
    services: ['orchestrator'],
    deploy: 'app',
    description: 'Base URL of the payment service ({payment_url}) for the administration console; defaults to <PUBLIC_URL>/payment.',
  }),
  VISUAL_URL: optional(url, {
    services: ['orchestrator', 'visual'],
    deploy: 'app',
    description: 'Base URL of the visual service ({visual_url}); defaults to <PUBLIC_URL>/visual.',
  }),
  CORS_ALLOWED_ORIGINS: withDefault(origins, '', {
    services: ALL,
    deploy: 'app',
    description:
      "Comma list of browser origins (scheme://host[:port]) allowed to call the APIs cross-origin, e.g. the console on another host; empty allows none. In Azure the Bicep feeds the same list to the platform's CORS.",
  }),
  LOG_LEVEL: withDefault(oneOf(['debug', 'info', 'warn', 'error'] as const), 'info', {
    services: ALL,
    deploy: 'tuning',
    description: 'Lowest level of log lines written.',
  }),
  APPLICATIONINSIGHTS_CONNECTION_STRING: optional(text, {
    services: ALL,
    deploy: 'app',
    description: 'Application Insights connection string; telemetry is off when unset.',
  }),

  // ---- local development -------------------------------------------------------------------
  PORT: withDefault(integer(0, 65535), '7071', { services: ALL, deploy: 'local', description: 'Dev host port (0 picks a free one).' }),
  HOST: withDefault(text, '127.0.0.1', { services: ALL, deploy: 'local', description: 'Dev host bind address (loopback by default).' }),
  DATA_DIR: withDefault(text, '.data', { services: ALL, deploy: 'local', description: 'Where local data lives: SQLite file, Azurite files, email outbox.' }),

  // ---- SQL ---------------------------------------------------------------------------------
  SQL_SERVER: optional(text, {
    services: ALL,
    deploy: 'app',
    description: 'Azure SQL server host name; when unset the embedded SQLite database under DATA_DIR is used.',
  }),
  SQL_DATABASE: optional(text, { services: ALL, deploy: 'app', description: 'Azure SQL database name.' }),
  SQL_AUTH: withDefault(oneOf(['managed-identity', 'sql'] as const), 'managed-identity', {
    services: ALL,
    deploy: 'tuning',
    description: 'Azure SQL authentication: Entra ID managed identity, or SQL user and password.',
  }),
  SQL_USER: optional(text, { services: ALL, deploy: 'local', description: 'SQL authentication user (SQL_AUTH=sql only).' }),
  SQL_PASSWORD: optional(text, { services: ALL, deploy: 'local', description: 'SQL authentication password (SQL_AUTH=sql only).' }),
  SQL_TRUST_SERVER_CERTIFICATE: withDefault(boolean, 'false', {
    services: ALL,
    deploy: 'local',
    description:
      "Accept the SQL server's TLS certificate unchecked: a local SQL Server container's self-signed one (the SQL Server workflow); never for Azure SQL.",
  }),
  SQL_POOL_MAX: withDefault(integer(1, 100), '5', {
    services: ALL,
    deploy: 'tuning',
    description: 'Connections per instance; keep small, every scaled-out instance has its own pool.',
  }),
  AZURE_CLIENT_ID: optional(text, { services: ALL, deploy: 'app', description: 'Client id of the user-assigned managed identity (SQL, Storage, Key Vault).' }),

  // ---- Storage -----------------------------------------------------------------------------
  AzureWebJobsStorage: optional(text, {
    services: ALL,
    deploy: 'local',
    description:
      'Storage connection string. Unset locally: the dev host starts Azurite. In Azure the identity-based AzureWebJobsStorage__accountName is used instead.',
  }),
  AzureWebJobsStorage__accountName: optional(text, { services: ALL, deploy: 'app', description: 'Storage account name, reached with the managed identity.' }),
  AzureWebJobsStorage__credential: optional(oneOf(['managedidentity'] as const), {
    services: ALL,
    deploy: 'app',
    description: 'Set to managedidentity for identity-based storage access.',
  }),
  AzureWebJobsStorage__clientId: optional(text, { services: ALL, deploy: 'app', description: 'Client id of the managed identity used for storage.' }),

  // ---- tokens shared by every service ------------------------------------------------------
  JWT_ISSUER: withDefault(text, 'identity-service', { services: ALL, deploy: 'tuning', description: 'iss of user access tokens.' }),
  JWT_AUDIENCE: withDefault(text, 'report-platform', { services: ALL, deploy: 'tuning', description: 'aud of user access tokens.' }),
  IDENTITY_SERVICE_ID: withDefault(text, 'identity-service', {
    services: ['identity', 'payment'],
    deploy: 'tuning',
    description: 'aud of the service admin token.',
  }),
  PAYMENT_SERVICE_ID: withDefault(text, 'payment-service', {
    services: ['identity', 'payment'],
    deploy: 'tuning',
    description: 'X-Service value and iss of the service admin token.',
  }),
  SESSION_CHECK_CACHE_SECONDS: withDefault(integer(0, 10), '5', {
    services: ['payment', 'orchestrator'],
    deploy: 'tuning',
    description:
      "How long a service trusts identity's answer about a session (live user, role and plan) before asking again: the bound on how late an ended session or a changed role or plan is seen.",
  }),
  IDENTITY_TIMEOUT_MS: withDefault(integer(100, 60_000), '5000', {
    services: ['payment', 'orchestrator'],
    deploy: 'tuning',
    description: 'Deadline of one session check at identity (GET /auth/validate).',
  }),

  // ---- identity ----------------------------------------------------------------------------
  JWT_SIGNING_KEYS: required(json, {
    services: ID,
    deploy: 'secret',
    description: 'JSON array of private JWKs (ES256 or RS256, each with a kid). The first signs; all are published at /.well-known/jwks.json.',
  }),
  SERVICE_TOKEN_SECRET: required(secret(32), { services: ID, deploy: 'secret', description: 'HS256 secret that verifies the payment service admin token.' }),
  SERVICE_TOKEN_SECRET_PREVIOUS: optional(secret(32), {
    services: ID,
    deploy: 'secret',
    description: 'Previous service-token secret, accepted during rotation.',
  }),
  OTP_HMAC_KEY: required(secret(32), {
    services: ID,
    deploy: 'secret',
    description: 'Key of the HMAC under which one-time codes are stored and from which rotated refresh tokens are derived.',
  }),
  ALLOW_SIGNUP: withDefault(boolean, 'true', { services: ID, deploy: 'tuning', description: 'Whether an unknown email signs up on login.' }),
  BOOTSTRAP_ADMIN_EMAIL: optional(text, { services: ID, deploy: 'app', description: 'Created as super_admin at start-up when absent.' }),
  SMTP_URL: optional(text, {
    unresolved: 'unset',
    services: ID,
    deploy: 'secret',
    description:
      'nodemailer SMTP URL: when set, login emails go through it. Unset: through Azure Communication Services when EMAIL_ACS_ENDPOINT is set, else each email is written as an .eml file under <DATA_DIR>/outbox.',
  }),
  EMAIL_FROM: withDefault(text, 'Report Platform <no-reply@example.com>', { services: ID, deploy: 'tuning', description: 'From address of login emails.' }),
  EMAIL_ACS_ENDPOINT: optional(url, {
    services: ID,
    deploy: 'app',
    description:
      'Azure Communication Services endpoint (https://<name>.communication.azure.com): login emails are sent through it with the managed identity (AZURE_CLIENT_ID), from EMAIL_FROM (an address of its linked domain). SMTP_URL, when set, is used instead.',
  }),
  OTP_LENGTH: withDefault(integer(6, 10), '6', { services: ID, deploy: 'tuning', description: 'Digits in a one-time sign-in code (CSPRNG).' }),
  OTP_TTL_SECONDS: withDefault(integer(60, 600), '600', {
    services: ID,
    deploy: 'tuning',
    description: 'How long a sign-in code stays valid (NIST SP 800-63B: at most 10 minutes).',
  }),
  OTP_MAX_ATTEMPTS: withDefault(integer(1, 10), '5', {
    services: ID,
    deploy: 'tuning',
    description: 'Verification tries per code; the code is burnt after the last one.',
  }),
  OTP_RESEND_COOLDOWN_SECONDS: withDefault(integer(0, 3600), '60', {
    services: ID,
    deploy: 'tuning',
    description: 'Minimum time before a new code is sent while the previous one is still usable.',
  }),
  LOGIN_RATE_WINDOW_SECONDS: withDefault(integer(60, 86400), '3600', {
    services: ID,
    deploy: 'tuning',
    description: 'Window of the per-email and per-IP login caps.',
  }),
  LOGIN_MAX_PER_EMAIL: withDefault(integer(1, 1000), '5', {
    services: ID,
    deploy: 'tuning',
    description: "Codes sent to one address for one client IP per window (reset by a successful sign-in), so other clients cannot spend the owner's allowance.",
  }),
  LOGIN_MAX_PER_EMAIL_TOTAL: withDefault(integer(1, 10000), '20', {
    services: ID,
    deploy: 'tuning',
    description: 'Codes sent to one address from all clients per window (reset by a successful sign-in): the ceiling against mail bombing.',
  }),
  LOGIN_MAX_PER_IP: withDefault(integer(1, 100000), '100', { services: ID, deploy: 'tuning', description: 'Login requests from one client IP per window.' }),
  ACCESS_TOKEN_TTL_SECONDS: withDefault(integer(60, 3600), '900', { services: ID, deploy: 'tuning', description: 'Lifetime of user access tokens.' }),
  REFRESH_TOKEN_TTL_SECONDS: withDefault(integer(300, 7776000), '1209600', {
    services: ID,
    deploy: 'tuning',
    description: 'Idle lifetime of a refresh token (each rotation starts a new one).',
  }),
  SESSION_MAX_AGE_SECONDS: withDefault(integer(300, 31536000), '2592000', {
    services: ID,
    deploy: 'tuning',
    description: 'Absolute lifetime of a session, whatever the refreshes.',
  }),
  REFRESH_REUSE_GRACE_SECONDS: withDefault(integer(0, 60), '10', {
    services: ID,
    deploy: 'tuning',
    description:
      'A rotated refresh token presented within this time gets its unused successor again, or is refused, without revoking the session (a lost answer, concurrent tabs).',
  }),
  AUDIT_RETENTION_DAYS: withDefault(integer(30, 3650), '400', {
    services: ID,
    deploy: 'tuning',
    description: 'Audit entries older than this are purged by the hourly cleanup.',
  }),
  ADMIN_INACTIVITY_DAYS: withDefault(integer(1, 3650), '90', {
    services: ID,
    deploy: 'tuning',
    description: 'Compliance report: admins without a sign-in for this long are listed as inactive.',
  }),
  SIGNING_KEY_MAX_AGE_DAYS: withDefault(integer(1, 3650), '180', {
    services: ID,
    deploy: 'tuning',
    description: 'Compliance report: signing keys older than this are flagged for rotation.',
  }),

  // ---- payment -----------------------------------------------------------------------------
  AUTH_ADMIN_TOKEN: required(text, {
    services: PAY,
    deploy: 'secret',
    description: 'Service admin token the payment service sends to identity (npm run service-token).',
  }),
  STRIPE_SECRET_KEY: optional(text, { services: PAY, deploy: 'secret', unresolved: 'unset', description: 'Stripe secret key.' }),
  STRIPE_WEBHOOK_SECRET: required(secret(16), { services: PAY, deploy: 'secret', description: 'Signing secret of the Stripe webhook endpoint (whsec_...).' }),
  STRIPE_API_BASE: optional(url, { services: PAY, deploy: 'local', description: 'Point the Stripe client at another server (the local Stripe API server).' }),
  STRIPE_EMULATOR_PORT: withDefault(integer(0, 65535), '0', {
    services: PAY,
    deploy: 'local',
    description:
      'Port of the local Stripe API server started in offline mode (0 picks a free one; its address is written to <DATA_DIR>/stripe-emulator.json for the CLIs).',
  }),
  PLANS_JSON: optional(json, {
    services: ['payment', 'orchestrator'],
    deploy: 'tuning',
    description:
      'Plan table override: JSON array of { id, name, price (smallest currency unit), currency, reportsPerMonth (null: unlimited), features[], priceVersion } for free, pro and enterprise. Payment charges it; the orchestrator enforces its report quotas.',
  }),
  PAYMENT_SYNC_TIMEOUT_MS: withDefault(integer(100, 60_000), '5000', {
    services: PAY,
    deploy: 'tuning',
    description: 'Deadline of one plan-update call to identity.',
  }),
  PAYMENT_SYNC_RETRY_BASE_SECONDS: withDefault(integer(1, 86_400), '30', {
    services: PAY,
    deploy: 'tuning',
    description: 'Base of the exponential backoff (full jitter) between plan-sync retries.',
  }),
  PAYMENT_SYNC_RETRY_MAX_DELAY_SECONDS: withDefault(integer(1, 604_800), '3600', {
    services: PAY,
    deploy: 'tuning',
    description: 'Largest delay between two plan-sync retries.',
  }),
  PAYMENT_SYNC_MAX_ATTEMPTS: withDefault(integer(1, 1000), '36', {
    services: PAY,
    deploy: 'tuning',
    description: 'Failed plan-sync attempts after which the payment goes to manual review.',
  }),
  PAYMENT_SYNC_RETRY_SCHEDULE: withDefault(text, '0 */1 * * * *', {
    services: PAY,
    deploy: 'app',
    description: 'NCRONTAB schedule of the plan-sync retry timer (the timer reads it as %PAYMENT_SYNC_RETRY_SCHEDULE%, so it must be set).',
  }),
  PAYMENT_FAILED_SYNC_TABLE: withDefault(text, 'paymentfailedsyncs', {
    services: PAY,
    deploy: 'tuning',
    description: 'Table Storage table holding the failed-sync records (key auth_sync_failed:<userId>, kept 24 hours).',
  }),

  // ---- orchestrator ------------------------------------------------------------------------
  VISUAL_API_TOKEN: optional(secret(16), {
    services: ['orchestrator', 'visual'],
    deploy: 'secret',
    description: 'Bearer token the orchestrator sends to the visual service; when set the visual API requires it.',
  }),
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

  // ---- visual ------------------------------------------------------------------------------
  QUICKCHART_URL: optional(url, { services: VIS, deploy: 'tuning', description: 'Render through this self-hosted QuickChart server instead of in process.' }),
  QUICKCHART_API_KEY: optional(text, {
    services: VIS,
    deploy: 'tuning',
    description:
      'API key sent to the QuickChart server of QUICKCHART_URL (as quickchart-js sends it), when that server requires one; keep it in Key Vault when used.',
  }),
  VISUAL_CACHE_CONTAINER: withDefault(text, 'chart-cache', {
    services: VIS,
    deploy: 'tuning',
    description: 'Blob container holding rendered charts, infographics, diagrams and presentations.',
  }),
  VISUAL_CACHE_TTL_SECONDS: withDefault(integer(60, 7 * 86400), '43200', {
    services: VIS,
    deploy: 'tuning',
    description: 'How long a rendered result stays served from the cache (12 hours by default); also the expiresAt offset.',
  }),
  VISUAL_RENDER_WORKERS: withDefault(integer(0, 64), '0', {
    services: VIS,
    deploy: 'tuning',
    description: 'Render worker threads per instance; 0 sizes the pool to the available cores.',
  }),
  VISUAL_RENDER_TIMEOUT_MS: withDefault(integer(1, 120_000), '10000', {
    services: VIS,
    deploy: 'tuning',
    description: 'A render taking longer fails (500 Chart rendering failed) and its worker is replaced.',
  }),
  VISUAL_RENDER_QUEUE_MAX: withDefault(integer(1, 100_000), '200', {
    services: VIS,
    deploy: 'tuning',
    description: 'Renders waiting for a thread per instance; beyond it a request gets 503 with Retry-After (backpressure instead of unbounded latency).',
  }),
  VISUAL_FONT_DIR: optional(text, {
    services: VIS,
    deploy: 'tuning',
    description:
      'Folder holding DejaVuSans.ttf and DejaVuSans-Bold.ttf; every theme font is drawn with them so output is the same on every machine. Default: the fonts of the dejavu-fonts-ttf npm package (no operating-system font is needed).',
  }),
  VISUAL_EXTRA_FONTS: optional(text, {
    services: VIS,
    deploy: 'tuning',
    description:
      'Comma list of extra font files (absolute paths, or package paths such as @fontsource/noto-sans-sc/files/noto-sans-sc-chinese-simplified-400-normal.woff) used where DejaVu Sans has no glyph, e.g. CJK. TTF/OTF serve charts and SVG-to-PNG; WOFF/WOFF2 serve charts only.',
  }),
  VISUAL_MAX_ITEMS: withDefault(integer(1, 100), '20', {
    services: VIS,
    deploy: 'tuning',
    description: 'Charts, infographics, diagrams or slides per request (413 above).',
  }),
  VISUAL_MAX_DIMENSION: withDefault(integer(100, 8000), '4000', {
    services: VIS,
    deploy: 'tuning',
    description: 'Largest width or height in pixels (400 above).',
  }),
  VISUAL_MAX_DATASETS: withDefault(integer(1, 200), '20', { services: VIS, deploy: 'tuning', description: 'Datasets per chart (400 above).' }),
  VISUAL_MAX_POINTS: withDefault(integer(1, 100_000), '5000', {
    services: VIS,
    deploy: 'tuning',
    description: 'Data points (and labels) per dataset (400 above).',
  }),
  VISUAL_MAX_BODY_BYTES: withDefault(integer(1024, 50 * 1024 * 1024), String(2 * 1024 * 1024), {
    services: VIS,
    deploy: 'tuning',
    description: 'Largest request body of the visual API and the QuickChart endpoint (413 above).',
  }),
} satisfies Record<string, Setting<unknown>>;

export type SettingName = keyof typeof SETTINGS;
export type Config = { readonly [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['parse']> };
