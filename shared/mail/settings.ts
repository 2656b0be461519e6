import { text, url } from '../config/parsers';
import { withDefault, optional, type Setting } from '../config/setting-kinds';
import type { Config, ConfigOf } from '../config';
import type { Platform } from '../platform';

/** The services that send e-mail: identity its sign-in codes, payment its billing notices, the orchestrator its report notices. */
const MAILING = ['identity', 'payment', 'orchestrator'] as const;

/** How the platform sends e-mail: SMTP, Azure Communication Services, or the local outbox. */
export const MAIL_SETTINGS = {
  // ---- e-mail ------------------------------------------------------------------------------
  SMTP_URL: optional(text, {
    unresolved: 'unset',
    services: MAILING,
    deploy: 'secret',
    description:
      'nodemailer SMTP URL: when set, every email goes through it. Unset: through Azure Communication Services when EMAIL_ACS_ENDPOINT is set, else each email is written as an .eml file under <DATA_DIR>/outbox.',
  }),
  EMAIL_FROM: withDefault(text, 'Report Platform <no-reply@example.com>', { services: MAILING, deploy: 'tuning', description: 'From address of every email.' }),
  EMAIL_ACS_ENDPOINT: optional(url, {
    services: MAILING,
    deploy: 'app',
    description:
      'Azure Communication Services endpoint (https://<name>.communication.azure.com): emails are sent through it with the managed identity (AZURE_CLIENT_ID), from EMAIL_FROM (an address of its linked domain). SMTP_URL, when set, is used instead.',
  }),
} satisfies Record<string, Setting<unknown>>;

export type MailConfig = Config & ConfigOf<typeof MAIL_SETTINGS>;

export const mailConfig = (platform: Platform): MailConfig => platform.settingsOf(MAIL_SETTINGS, 'mail');
