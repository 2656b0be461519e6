// Mutation runs in parts (npm run mutation:focus, STRYKER_PART=<part>), each one a session here can
// finish, each judged by its own service's suites; together they cover all of identity and payment,
// which a whole run (npm run mutation) does in one go on a machine with more cores.
// The first two are the code whose mistakes would cost most: `guards`, identity's guards (sessions,
// admin permissions, the plan caller), and `sync` (the default), payment's plan sync and webhook
// against the payment files written for them.
// A guard is reached by nearly every test file (each signs someone in), so against all of
// identity's and payment's suites together each guard mutant cost about a minute here; the other
// service's tests reach this code only through the same routes identity's own tests call.
import base from './stryker.config.mjs';

const IDENTITY_SUITES = ['<rootDir>/dist/tests/identity'];
const PAYMENT_SUITES = ['<rootDir>/dist/tests/payment'];
// Payment's suites, the monitoring test, which holds the sync backlog line the alerts read to its
// counts, the console's test of payment's admin routes (the list and the replay), and the check
// that sql/ holds the T-SQL of every migration (what Azure SQL runs; SQLite accepts any column type).
const PAYMENT_TESTS = {
  roots: ['<rootDir>/dist/tests'],
  testMatch: ['**/tests/payment/*.test.js', '**/tests/infra/monitoring.test.js', '**/tests/console/payment-admin.test.js', '**/tests/platform/tsql.test.js'],
};
const identity = (files) => files.map((file) => `functions/identity/${file}.ts`);
const payment = (files) => files.map((file) => `functions/payment/${file}.ts`);
// Identity's files by part; `identity-rest` is every other file.
const GUARDS = ['guards'];
const LOGIN = ['login', 'mailer'];
const CODES = ['otp', 'rate-limit', 'tokens'];
const USERS = ['user-admin', 'plan', 'roles'];
const SESSIONS = ['users', 'sessions'];
// Payment's files by part; `payment-rest` is every other file, so the parts together are the whole service.
const SYNC = ['plan-sync', 'webhook'];
const RECORDS = ['payments', 'failed-sync-records', 'backlog'];
const EVENTS = ['webhook-events', 'create-payment-intent'];
const CLIENTS = ['identity-client', 'stripe-client'];
const ACCESS = ['guards', 'webhook-secret', 'user-status', 'admin', 'replay', 'health'];

const PARTS = {
  guards: { mutate: identity(GUARDS), roots: IDENTITY_SUITES },
  // The rest of identity against identity's suites, in parts a session can finish.
  // Every identity test signs someone in, so against all of identity's suites each sign-in mutant
  // reran most of them (estimated an hour and a half here); the files written for sign-in, refresh,
  // sign-out and mail judge it instead.
  'identity-login': {
    mutate: identity(LOGIN),
    roots: IDENTITY_SUITES,
    testMatch: ['**/{login,login-answers,tokens,codes,acs-email,closed-signup-smtp}.test.js'],
  },
  'identity-codes': { mutate: identity(CODES), roots: IDENTITY_SUITES },
  // User administration, roles and plans against the files that read them back (the administration
  // routes, the plan, bootstrap, the T-SQL of identity's queries); the files written for the code
  // email and its limits only sign someone in on the way.
  'identity-users': {
    mutate: identity(USERS),
    roots: IDENTITY_SUITES,
    testMatch: ['**/{admin,bootstrap,guards,operations,plan-guards,plan,tokens,login,tsql}.test.js'],
  },
  // Users and sessions are read by every sign-in, so each of their mutants reruns every file it is
  // run against (the first try, with user administration in the same part, was estimated at four
  // hours here).
  'identity-sessions': {
    mutate: identity(SESSIONS),
    roots: IDENTITY_SUITES,
    testMatch: ['**/{admin,guards,tokens,login,login-answers,tsql}.test.js'],
  },
  'identity-rest': {
    mutate: ['functions/identity/**/*.ts', ...identity([...GUARDS, ...LOGIN, ...CODES, ...USERS, ...SESSIONS]).map((file) => `!${file}`)],
    roots: IDENTITY_SUITES,
  },
  sync: {
    mutate: payment(SYNC),
    roots: PAYMENT_SUITES,
    // The files written for the sync and the webhook; the others (the Stripe emulator, the CLI, the
    // plans route) reach the sync only on the happy path these cover too, at a host start each.
    testMatch: ['**/{plan-sync,sync-failures,storage-down,payment-guards,event-order,stripe-webhook,webhook-database,webhook-signature}.test.js'],
  },
  // The rest of payment against payment's suites and the monitoring test, in parts a session can
  // finish (a whole run, `npm run mutation`, takes longer than a session here).
  'payment-records': { mutate: payment(RECORDS), ...PAYMENT_TESTS },
  'payment-events': { mutate: payment(EVENTS), ...PAYMENT_TESTS },
  'payment-clients': { mutate: payment(CLIENTS), ...PAYMENT_TESTS },
  'payment-access': { mutate: payment(ACCESS), ...PAYMENT_TESTS },
  'payment-rest': {
    mutate: ['functions/payment/**/*.ts', ...payment([...SYNC, ...RECORDS, ...EVENTS, ...CLIENTS, ...ACCESS]).map((file) => `!${file}`)],
    ...PAYMENT_TESTS,
  },
};
// The default is scripts/mutation-scores.ts's DEFAULT_PART too (it records the part just run).
const name = process.env.STRYKER_PART ?? 'sync';
const part = PARTS[name];
if (!part) throw new Error(`STRYKER_PART must be one of ${Object.keys(PARTS).join(', ')}, not ${name}`);

export default {
  ...base,
  mutate: part.mutate,
  jest: { ...base.jest, config: { ...base.jest.config, roots: part.roots, ...(part.testMatch ? { testMatch: part.testMatch } : {}) } },
  // Each part keeps its own results (a cache, git-ignored), so one part's run does not discard the
  // others'; `npm run mutation:focus` then records its scores in tests/mutation/scores.json.
  incrementalFile: `.stryker-incremental/${name}.json`,
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
};
