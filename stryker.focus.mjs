// The focused mutation run (npm run mutation:focus): the code whose mistakes would cost most,
// identity's guards (sessions, admin permissions, the plan caller), payment's plan sync and its
// webhook. The whole run (stryker.config.mjs) takes hours on a two-core machine; this one under one.
import base from './stryker.config.mjs';

export default {
  ...base,
  mutate: ['functions/identity/guards.ts', 'functions/payment/plan-sync.ts', 'functions/payment/webhook.ts'],
  htmlReporter: { fileName: 'reports/mutation/focus.html' },
  jsonReporter: { fileName: 'reports/mutation/focus.json' },
};
