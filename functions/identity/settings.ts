import { boolean, integer, secret, text } from '../../shared/config/parsers';
import { withDefault, required, optional, ID, type Setting } from '../../shared/config/setting-kinds';
import type { Config, ConfigOf } from '../../shared/config';
import type { Platform } from '../../shared/platform';

/** identity's settings: signing keys, one-time codes, sign-in limits, sessions, email. */
export const IDENTITY_SETTINGS = {
  // ---- identity ----------------------------------------------------------------------------
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
  BOOTSTRAP_ADMIN_EMAIL: optional(text, {
    services: ID,
    deploy: 'app',
    description: 'Created as super_admin when absent, by the first sign-in request an instance serves (start-up touches no SQL).',
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
    description: 'Audit entries older than this are purged by the daily cleanup (03:17 UTC).',
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
} satisfies Record<string, Setting<unknown>>;

/** The settings identity's code reads: the platform's and its own. */
export type IdentityConfig = Config & ConfigOf<typeof IDENTITY_SETTINGS>;

/** A platform's configuration as identity reads it (a member made from the platform, a host's banner). */
export const identityConfig = (platform: Platform): IdentityConfig => platform.settingsOf(IDENTITY_SETTINGS, 'identity');
