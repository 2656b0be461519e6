// The focused mutation runs (npm run mutation:focus): the code whose mistakes would cost most, in
// two parts a session can finish, each judged by its own service's tests. STRYKER_PART=guards
// mutates identity's guards (sessions, admin permissions, the plan caller) against identity's
// suites; STRYKER_PART=sync (the default) payment's plan sync and its webhook against the payment
// files written for them.
// A guard is reached by nearly every test file (each signs someone in), so against all of
// identity's and payment's suites together each guard mutant cost about a minute here; the other
// service's tests reach this code only through the same routes identity's own tests call.
import base from './stryker.config.mjs';

const PARTS = {
  guards: { mutate: ['functions/identity/guards.ts'], roots: ['<rootDir>/dist/tests/identity'] },
  sync: {
    mutate: ['functions/payment/plan-sync.ts', 'functions/payment/webhook.ts'],
    roots: ['<rootDir>/dist/tests/payment'],
    // The files written for the sync and the webhook; the others (the Stripe emulator, the CLI, the
    // plans route) reach the sync only on the happy path these cover too, at a host start each.
    testMatch: ['**/{plan-sync,sync-failures,storage-down,payment-guards,event-order,stripe-webhook,webhook-database,webhook-signature}.test.js'],
  },
};
const name = process.env.STRYKER_PART ?? 'sync';
const part = PARTS[name];
if (!part) throw new Error(`STRYKER_PART must be one of ${Object.keys(PARTS).join(', ')}, not ${name}`);

export default {
  ...base,
  mutate: part.mutate,
  jest: { ...base.jest, config: { ...base.jest.config, roots: part.roots, ...(part.testMatch ? { testMatch: part.testMatch } : {}) } },
  // Each part keeps its own results (committed), so one part's run does not discard the other's.
  incrementalFile: `tests/mutation/${name}.json`,
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
};
