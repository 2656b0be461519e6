import type { Email } from '../../../shared/mail/mailer';

/** The notice e-mailed to a report's requester; the link is the report's (notify/links.ts). */
export function reportNotice(to: string, notice: { status: 'completed' | 'failed'; company: string; trackingId: string; link: string; error?: string }): Email {
  const done = notice.status === 'completed';
  const subject = done ? `Your report on ${notice.company} is ready` : `Your report on ${notice.company} could not be produced`;
  const lines = done
    ? [`Your report on ${notice.company} is ready.`, '', `Open it here: ${notice.link}`]
    : [`Your report on ${notice.company} could not be produced.`, '', notice.error ?? '', '', `Its status: ${notice.link}`];
  lines.push(
    '',
    `Tracking id: ${notice.trackingId}`,
    '',
    'You receive this e-mail because you requested the report. To stop these e-mails, turn them off with',
    'PUT /orchestrator/api/notifications/preferences {"email": false}.',
  );
  return { to, subject, text: lines.join('\n') };
}
