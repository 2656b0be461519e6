import base from './stryker.config.mjs';
export default {
  ...base,
  mutate: ['functions/payment/**/*.ts'],
  htmlReporter: { fileName: 'reports/mutation/payment.html' },
  jsonReporter: { fileName: 'reports/mutation/payment.json' },
};
