import type { Email } from '../../shared/mail/mailer';

const day = (iso: string) => iso.slice(0, 10);

/**
 * The notices payment sends itself; Stripe sends the receipts and invoices (the Customer's e-mail
 * is set). Plain text, no secrets, no links that carry tokens: the billing page is reached signed in.
 */
export const paymentFailedEmail = (to: string, plan: string, keptUntil: string): Email => ({
  to,
  subject: `Your ${plan} renewal payment failed`,
  text: [
    `We could not charge your card for the renewal of your ${plan} plan.`,
    '',
    `Your plan stays active until ${day(keptUntil)} while the card is tried again. Update your card in the billing portal`,
    '(Billing, "Manage billing") to keep it; if no payment succeeds by then, your account moves to the free plan.',
  ].join('\n'),
});

export const planEndingEmail = (to: string, plan: string, endsAt: string): Email => ({
  to,
  subject: `Your ${plan} plan ends on ${day(endsAt)}`,
  text: [
    `Your ${plan} subscription was cancelled. You keep the plan until ${day(endsAt)}, the end of the period you paid for;`,
    'after that your account moves to the free plan. You can subscribe again at any time.',
  ].join('\n'),
});
