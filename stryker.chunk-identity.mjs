import base from './stryker.config.mjs';
export default {
  ...base,
  mutate: ['functions/identity/**/*.ts'],
  htmlReporter: { fileName: 'reports/mutation/identity.html' },
  jsonReporter: { fileName: 'reports/mutation/identity.json' },
};
