import type { Email } from '../../../shared/mail/mailer';

/** The notice e-mailed to a report's requester: a completed report's link is its web page (a share link of shareDays days), a failed one's its status. */
export function reportNotice(
  to: string,
  notice: { status: 'completed' | 'failed'; company: string; trackingId: string; link: string; shareDays?: number; error?: string },
): Email {
  const done = notice.status === 'completed';
  const subject = done ? `Your report on ${notice.company} is ready` : `Your report on ${notice.company} could not be produced`;
  const lines = done
    ? [
        `Your report on ${notice.company} is ready.`,
        '',
        `Read it here: ${notice.link}`,
        ...(notice.shareDays
          ? [
              `The page opens on any device without signing in, for ${notice.shareDays} days, and has the PDF on it.`,
              "Anyone you forward this link to can read the report until then; your report's share links list it, and you can revoke it there.",
            ]
          : []),
      ]
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
