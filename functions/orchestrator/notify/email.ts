import type { Email } from '../../../shared/mail/mailer';
import { messages } from '../i18n/catalogue';
import { DEFAULT_LOCALE } from '../report/words';

/**
 * The notice e-mailed to a report's requester, in the report's language (its locale's catalogue,
 * i18n/catalogue.ts); a completed report's link is its web page (a share link of shareDays days), a
 * failed one's its status (notify/links.ts). A failure's reason is the status
 * API's, in the report's language (report/status.ts); the opt-out names the API call as it is.
 */
export function reportNotice(
  to: string,
  notice: { status: 'completed' | 'failed'; company: string; trackingId: string; link: string; shareDays?: number; error?: string; locale?: string },
): Email {
  const { t } = messages(notice.locale ?? DEFAULT_LOCALE);
  const done = notice.status === 'completed';
  const company = notice.company;
  const subject = done ? t('email.readySubject', { company }) : t('email.failedSubject', { company });
  const lines = done
    ? [
        t('email.ready', { company }),
        '',
        t('email.open', { link: notice.link }),
        ...(notice.shareDays ? [t('email.shareNote', { days: notice.shareDays })] : []),
      ]
    : [t('email.failed', { company }), '', notice.error ?? '', '', t('email.status', { link: notice.link })];
  lines.push('', t('email.tracking', { id: notice.trackingId }), '', t('email.why'), 'PUT /orchestrator/api/notifications/preferences {"email": false}.');
  return { to, subject, text: lines.join('\n') };
}
