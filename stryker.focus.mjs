// The focused mutation run (npm run mutation:focus): the code whose mistakes would cost most, the
// guards on identity's routes, the plan identity receives, payment's plan sync and webhook. The
// whole run (stryker.config.mjs) takes hours on a two-core machine; this one about half an hour.
import base from './stryker.config.mjs';

export default {
  ...base,
  mutate: [
    'functions/identity/guards.ts',
    'functions/identity/plan.ts',
    'functions/payment/plan-sync.ts',
    'functions/payment/webhook.ts',
    'functions/payment/webhook-events.ts',
  ],
  htmlReporter: { fileName: 'reports/mutation/focus.html' },
  jsonReporter: { fileName: 'reports/mutation/focus.json' },
};
