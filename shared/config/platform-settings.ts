import { boolean, integer, json, listOf, oneOf, origins, secret, text, url } from './parsers';
import { withDefault, optional, required, ALL, ID, SERVICE_NAMES, type Setting } from './setting-kinds';

/** Settings every service or the platform itself reads: hosting, local development, SQL, Storage and the tokens all services check. */
export const PLATFORM_SETTINGS = {
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
  ORCHESTRATOR_URL: optional(url, {
    services: ['payment'],
    deploy: 'app',
    description: "Base URL of the orchestrator service ({base_url}) for the reports left in a user's billing period; defaults to <PUBLIC_URL>/orchestrator.",
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
      "The Functions host's storage (connection string), which also holds the platform's data when PLATFORM_STORAGE is unset (locally). Unset locally: the dev host starts Azurite. In Azure the identity-based AzureWebJobsStorage__accountName is used instead.",
  }),
  AzureWebJobsStorage__accountName: optional(text, {
    services: ALL,
    deploy: 'app',
    description: "The Functions host's storage account, reached with the managed identity: in Azure each app's own (host keys, timer locks, its package).",
  }),
  AzureWebJobsStorage__credential: optional(oneOf(['managedidentity'] as const), {
    services: ALL,
    deploy: 'app',
    description: 'Set to managedidentity for identity-based storage access.',
  }),
  AzureWebJobsStorage__clientId: optional(text, { services: ALL, deploy: 'app', description: 'Client id of the managed identity used for storage.' }),
  // The platform's data (chart cache, reports, the report queue, the tables) through a setting of its
  // own: in Azure each app's AzureWebJobsStorage is that app's own account (the host's keys and locks,
  // its package), and the data is in one shared account. Unset (locally): AzureWebJobsStorage's account.
  PLATFORM_STORAGE: optional(text, {
    services: ALL,
    deploy: 'local',
    description:
      "Connection string of the platform's data account (chart cache, reports, report queue, tables). Unset: the account of AzureWebJobsStorage (locally Azurite holds both). In Azure the identity-based PLATFORM_STORAGE__accountName is used instead.",
  }),
  PLATFORM_STORAGE__accountName: optional(text, {
    services: ALL,
    deploy: 'app',
    description:
      "The platform's data account, reached with the managed identity; in Azure AzureWebJobsStorage is each app's own host account. Unset (with PLATFORM_STORAGE): AzureWebJobsStorage's account.",
  }),
  PLATFORM_STORAGE__queueServiceUri: optional(text, {
    services: ['orchestrator'],
    deploy: 'app',
    description:
      "The data account's queue endpoint, for the Functions host: the report queue trigger's connection (PLATFORM_STORAGE) with the managed identity.",
  }),
  PLATFORM_STORAGE__credential: optional(oneOf(['managedidentity'] as const), {
    services: ['orchestrator'],
    deploy: 'app',
    description: "Set to managedidentity: the report queue trigger's connection (PLATFORM_STORAGE) is identity-based.",
  }),
  PLATFORM_STORAGE__clientId: optional(text, {
    services: ['orchestrator'],
    deploy: 'app',
    description: "Client id of the managed identity the report queue trigger's connection (PLATFORM_STORAGE) uses.",
  }),

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
  // ---- read by shared code on behalf of the services named ---------------------------------
  JWT_SIGNING_KEYS: required(json, {
    services: ID,
    deploy: 'secret',
    description: 'JSON array of private JWKs (ES256 or RS256, each with a kid). The first signs; all are published at /.well-known/jwks.json.',
  }),
  VISUAL_API_TOKEN: optional(secret(16), {
    services: ['orchestrator', 'visual'],
    deploy: 'secret',
    description: 'Bearer token the orchestrator sends to the visual service; when set the visual API requires it.',
  }),
  PLANS_JSON: optional(json, {
    services: ['payment', 'orchestrator'],
    deploy: 'tuning',
    description:
      'Plan table override: JSON array of { id, name, price (smallest currency unit), currency, reportsPerMonth (null: unlimited), features[], priceVersion } for free, pro and enterprise. Payment charges it; the orchestrator enforces its report quotas.',
  }),
} satisfies Record<string, Setting<unknown>>;
