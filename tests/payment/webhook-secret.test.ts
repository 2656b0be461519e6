// What health and the start-up banner say about the configured webhook signing secret: each way it
// can be unusable is named, and a real signing secret is accepted.
import { WEBHOOK_SECRET_PLACEHOLDER_PREFIX, webhookSecretProblem } from '../../functions/payment/webhook-secret';

test.each([
  ['unset', undefined, 'STRIPE_WEBHOOK_SECRET is not set: every webhook is refused'],
  ['empty', '', 'STRIPE_WEBHOOK_SECRET is not set: every webhook is refused'],
  ['blank (a Key Vault secret holding only a newline)', ' \n', 'STRIPE_WEBHOOK_SECRET is not set: every webhook is refused'],
  ['something else (a secret key pasted by mistake)', 'sk_test_51Abc', 'STRIPE_WEBHOOK_SECRET does not look like a webhook signing secret (whsec_...)'],
])('%s: named', (_case, secret, problem) => {
  expect(webhookSecretProblem(secret)).toBe(problem);
});

test('the placeholder `npm run secrets` stores is named with the commands that replace it', () => {
  expect(webhookSecretProblem(`${WEBHOOK_SECRET_PLACEHOLDER_PREFIX}3f9a`)).toMatch(
    /^not ready: .*placeholder.*npm run stripe:webhook -- --url <payment URL>\/webhook/,
  );
});

test('a signing secret is accepted', () => {
  expect(webhookSecretProblem('whsec_2b7e151628aed2a6abf7158809cf4f3c')).toBeUndefined();
});
