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
  OTP_LENGTH: withDefault(integer(6, 10), '6', { services: ID, deploy: 'tuning', description: 'Digits in a one-time sign-in code (CSPRNG).' }),
  OTP_TTL_SECONDS: withDefault(integer(60, 600), '600', { services: ID, deploy: 'tuning', description: 'How long a sign-in code stays valid (NIST SP 800-63B: at most 10 minutes).' }),
  OTP_MAX_ATTEMPTS: withDefault(integer(1, 10), '5', { services: ID, deploy: 'tuning', description: 'Verification tries per code; the code is burnt after the last one.' }),
  OTP_RESEND_COOLDOWN_SECONDS: withDefault(integer(0, 3600), '60', { services: ID, deploy: 'tuning', description: 'Minimum time before a new code is sent while the previous one is still usable.' }),
  LOGIN_RATE_WINDOW_SECONDS: withDefault(integer(60, 86400), '3600', { services: ID, deploy: 'tuning', description: 'Window of the per-email and per-IP login caps.' }),
  LOGIN_MAX_PER_EMAIL: withDefault(integer(1, 1000), '5', { services: ID, deploy: 'tuning', description: 'Codes sent to one address per window (reset by a successful sign-in).' }),
  LOGIN_MAX_PER_IP: withDefault(integer(1, 100000), '100', { services: ID, deploy: 'tuning', description: 'Login requests from one client IP per window.' }),
  ACCESS_TOKEN_TTL_SECONDS: withDefault(integer(60, 3600), '900', { services: ID, deploy: 'tuning', description: 'Lifetime of user access tokens.' }),
  REFRESH_TOKEN_TTL_SECONDS: withDefault(integer(300, 7776000), '1209600', { services: ID, deploy: 'tuning', description: 'Idle lifetime of a refresh token (each rotation starts a new one).' }),
  SESSION_MAX_AGE_SECONDS: withDefault(integer(300, 31536000), '2592000', { services: ID, deploy: 'tuning', description: 'Absolute lifetime of a session, whatever the refreshes.' }),
  REFRESH_REUSE_GRACE_SECONDS: withDefault(integer(0, 60), '10', { services: ID, deploy: 'tuning', description: 'A rotated refresh token presented within this time is refused without revoking the session (concurrent tabs).' }),
  AUDIT_RETENTION_DAYS: withDefault(integer(30, 3650), '400', { services: ID, deploy: 'tuning', description: 'Audit entries older than this are purged by the hourly cleanup.' }),
  ADMIN_INACTIVITY_DAYS: withDefault(integer(1, 3650), '90', { services: ID, deploy: 'tuning', description: 'Compliance report: admins without a sign-in for this long are listed as inactive.' }),
  SIGNING_KEY_MAX_AGE_DAYS: withDefault(integer(1, 3650), '180', { services: ID, deploy: 'tuning', description: 'Compliance report: signing keys older than this are flagged for rotation.' }),

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
} satisfies Record<string, Setting<unknown>>;


export type SettingName = keyof typeof SETTINGS;
export type Config = { readonly [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['parse']> };
