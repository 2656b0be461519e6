import { boolean, integer, json, listOf, oneOf, secret, text, url, type Parser } from './parsers';

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
  parse: Parser<T>;
}

interface Meta {
  services: readonly ServiceName[] | 'all';
  description: string;
  deploy: Deploy;
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

/** Every setting any service reads. The README's configuration table and the Bicep parity test are checked against this list. */
export const SETTINGS = {
  // ---- platform ----------------------------------------------------------------------------
  SERVICES: withDefault(listOf(SERVICE_NAMES), SERVICE_NAMES.join(','), {
    services: ALL, deploy: 'app', description: 'Comma list of the services this Function App serves.',
  }),
  PUBLIC_URL: optional(url, {
    services: ALL, deploy: 'tuning',
    description: 'Public base URL of this host. Defaults to https://<WEBSITE_HOSTNAME> in Azure and to the dev host address locally.',
  }),
  WEBSITE_HOSTNAME: optional(text, { services: ALL, deploy: 'platform', description: 'Host name Azure assigns to the Function App.' }),
  IDENTITY_URL: optional(url, { services: ['payment', 'orchestrator'], deploy: 'app', description: 'Base URL of the identity service ({auth_url}); defaults to <PUBLIC_URL>/identity.' }),
  VISUAL_URL: optional(url, { services: ['orchestrator', 'visual'], deploy: 'app', description: 'Base URL of the visual service ({visual_url}); defaults to <PUBLIC_URL>/visual.' }),
  LOG_LEVEL: withDefault(oneOf(['debug', 'info', 'warn', 'error'] as const), 'info', { services: ALL, deploy: 'tuning', description: 'Lowest level of log lines written.' }),
  APPLICATIONINSIGHTS_CONNECTION_STRING: optional(text, { services: ALL, deploy: 'app', description: 'Application Insights connection string; telemetry is off when unset.' }),

  // ---- local development -------------------------------------------------------------------
  PORT: withDefault(integer(0, 65535), '7071', { services: ALL, deploy: 'local', description: 'Dev host port (0 picks a free one).' }),
  HOST: withDefault(text, '127.0.0.1', { services: ALL, deploy: 'local', description: 'Dev host bind address (loopback by default).' }),
  DATA_DIR: withDefault(text, '.data', { services: ALL, deploy: 'local', description: 'Where local data lives: SQLite file, Azurite files, email outbox.' }),

  // ---- SQL ---------------------------------------------------------------------------------
  SQL_SERVER: optional(text, { services: ALL, deploy: 'app', description: 'Azure SQL server host name; when unset the embedded SQLite database under DATA_DIR is used.' }),
  SQL_DATABASE: optional(text, { services: ALL, deploy: 'app', description: 'Azure SQL database name.' }),
  SQL_AUTH: withDefault(oneOf(['managed-identity', 'sql'] as const), 'managed-identity', {
    services: ALL, deploy: 'tuning', description: 'Azure SQL authentication: Entra ID managed identity, or SQL user and password.',
  }),
  SQL_USER: optional(text, { services: ALL, deploy: 'local', description: 'SQL authentication user (SQL_AUTH=sql only).' }),
  SQL_PASSWORD: optional(text, { services: ALL, deploy: 'local', description: 'SQL authentication password (SQL_AUTH=sql only).' }),
  SQL_POOL_MAX: withDefault(integer(1, 100), '5', { services: ALL, deploy: 'tuning', description: 'Connections per instance; keep small, every scaled-out instance has its own pool.' }),
  AZURE_CLIENT_ID: optional(text, { services: ALL, deploy: 'app', description: 'Client id of the user-assigned managed identity (SQL, Storage, Key Vault).' }),

  // ---- Storage -----------------------------------------------------------------------------
  AzureWebJobsStorage: optional(text, {
    services: ALL, deploy: 'local',
    description: 'Storage connection string. Unset locally: the dev host starts Azurite. In Azure the identity-based AzureWebJobsStorage__accountName is used instead.',
  }),
  AzureWebJobsStorage__accountName: optional(text, { services: ALL, deploy: 'app', description: 'Storage account name, reached with the managed identity.' }),
  AzureWebJobsStorage__credential: optional(oneOf(['managedidentity'] as const), { services: ALL, deploy: 'app', description: 'Set to managedidentity for identity-based storage access.' }),
  AzureWebJobsStorage__clientId: optional(text, { services: ALL, deploy: 'app', description: 'Client id of the managed identity used for storage.' }),

  // ---- tokens shared by every service ------------------------------------------------------
  JWT_ISSUER: withDefault(text, 'identity-service', { services: ALL, deploy: 'tuning', description: 'iss of user access tokens.' }),
  JWT_AUDIENCE: withDefault(text, 'report-platform', { services: ALL, deploy: 'tuning', description: 'aud of user access tokens.' }),
  IDENTITY_SERVICE_ID: withDefault(text, 'identity-service', { services: ['identity', 'payment'], deploy: 'tuning', description: 'aud of the service admin token.' }),
  PAYMENT_SERVICE_ID: withDefault(text, 'payment-service', { services: ['identity', 'payment'], deploy: 'tuning', description: 'X-Service value and iss of the service admin token.' }),

  // ---- identity ----------------------------------------------------------------------------
  JWT_SIGNING_KEYS: required(json, {
    services: ID, deploy: 'secret',
    description: 'JSON array of private JWKs (ES256 or RS256, each with a kid). The first signs; all are published at /.well-known/jwks.json.',
  }),
  SERVICE_TOKEN_SECRET: required(secret(32), { services: ID, deploy: 'secret', description: 'HS256 secret that verifies the payment service admin token.' }),
  SERVICE_TOKEN_SECRET_PREVIOUS: optional(secret(32), { services: ID, deploy: 'tuning', description: 'Previous service-token secret, accepted during rotation.' }),
  OTP_HMAC_KEY: required(secret(32), { services: ID, deploy: 'secret', description: 'Key of the HMAC under which one-time codes are stored.' }),
  ALLOW_SIGNUP: withDefault(boolean, 'true', { services: ID, deploy: 'tuning', description: 'Whether an unknown email signs up on login.' }),
  BOOTSTRAP_ADMIN_EMAIL: optional(text, { services: ID, deploy: 'app', description: 'Created as super_admin at start-up when absent.' }),
  SMTP_URL: optional(text, { services: ID, deploy: 'secret', description: 'nodemailer SMTP URL; when unset each email is written as an .eml file under <DATA_DIR>/outbox.' }),
  EMAIL_FROM: withDefault(text, 'Report Platform <no-reply@example.com>', { services: ID, deploy: 'tuning', description: 'From address of login emails.' }),

  // ---- payment -----------------------------------------------------------------------------
  AUTH_ADMIN_TOKEN: required(text, { services: PAY, deploy: 'secret', description: 'Service admin token the payment service sends to identity (npm run service-token).' }),
  STRIPE_SECRET_KEY: optional(text, { services: PAY, deploy: 'secret', description: 'Stripe secret key.' }),
  STRIPE_WEBHOOK_SECRET: required(secret(16), { services: PAY, deploy: 'secret', description: 'Signing secret of the Stripe webhook endpoint (whsec_...).' }),
  STRIPE_API_BASE: optional(url, { services: PAY, deploy: 'local', description: 'Point the Stripe client at another server (the local Stripe API server).' }),

  // ---- orchestrator ------------------------------------------------------------------------
  VISUAL_API_TOKEN: optional(secret(16), {
    services: ['orchestrator', 'visual'], deploy: 'secret',
    description: 'Bearer token the orchestrator sends to the visual service; when set the visual API requires it.',
  }),

  // ---- visual ------------------------------------------------------------------------------
  QUICKCHART_URL: optional(url, { services: VIS, deploy: 'tuning', description: 'Render through this self-hosted QuickChart server instead of in process.' }),
  QUICKCHART_API_KEY: optional(text, { services: VIS, deploy: 'tuning', description: 'API key sent to the QuickChart server of QUICKCHART_URL (as quickchart-js sends it), when that server requires one; keep it in Key Vault when used.' }),
  VISUAL_CACHE_CONTAINER: withDefault(text, 'chart-cache', { services: VIS, deploy: 'tuning', description: 'Blob container holding rendered charts, infographics, diagrams and presentations.' }),
  VISUAL_CACHE_TTL_SECONDS: withDefault(integer(60, 7 * 86400), '43200', { services: VIS, deploy: 'tuning', description: 'How long a rendered result stays served from the cache (spec 8: 12 hours); also the expiresAt offset.' }),
  VISUAL_RENDER_WORKERS: withDefault(integer(0, 64), '0', { services: VIS, deploy: 'tuning', description: 'Render worker threads per instance; 0 sizes the pool to the available cores.' }),
  VISUAL_RENDER_TIMEOUT_MS: withDefault(integer(1, 120_000), '10000', { services: VIS, deploy: 'tuning', description: 'A render taking longer fails (500 Chart rendering failed) and its worker is replaced.' }),
  VISUAL_RENDER_QUEUE_MAX: withDefault(integer(1, 100_000), '200', { services: VIS, deploy: 'tuning', description: 'Renders waiting for a thread per instance; beyond it a request gets 503 with Retry-After (backpressure instead of unbounded latency).' }),
  VISUAL_FONT_DIR: withDefault(text, '/usr/share/fonts/truetype/dejavu', {
    services: VIS, deploy: 'tuning',
    description: 'Folder holding DejaVuSans.ttf and DejaVuSans-Bold.ttf (Debian fonts-dejavu-core); every theme font is drawn with them so output is the same on every machine.',
  }),
  VISUAL_MAX_ITEMS: withDefault(integer(1, 100), '20', { services: VIS, deploy: 'tuning', description: 'Charts, infographics, diagrams or slides per request (413 above).' }),
  VISUAL_MAX_DIMENSION: withDefault(integer(100, 8000), '4000', { services: VIS, deploy: 'tuning', description: 'Largest width or height in pixels (400 above).' }),
  VISUAL_MAX_DATASETS: withDefault(integer(1, 200), '20', { services: VIS, deploy: 'tuning', description: 'Datasets per chart (400 above).' }),
  VISUAL_MAX_POINTS: withDefault(integer(1, 100_000), '5000', { services: VIS, deploy: 'tuning', description: 'Data points (and labels) per dataset (400 above).' }),
  VISUAL_MAX_BODY_BYTES: withDefault(integer(1024, 50 * 1024 * 1024), String(2 * 1024 * 1024), { services: VIS, deploy: 'tuning', description: 'Largest request body of the visual API and the QuickChart endpoint (413 above).' }),
} satisfies Record<string, Setting<unknown>>;


export type SettingName = keyof typeof SETTINGS;
export type Config = { readonly [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['parse']> };
