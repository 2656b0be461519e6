// Mutation testing of identity and payment (npm run mutation; not part of npm test: it takes hours).
// docs/testing.md has the scores of the last run, what survived and why.
//
// Stryker mutates the TypeScript sources, not the compiled JavaScript the tests run: the report then
// names source lines, and the TypeScript checker drops mutants that would not compile (a type error
// is no behaviour a test should have to catch) before any test runs for them. All mutants are
// written into the sources at once and switched at run time, so the sandbox compiles once
// (buildCommand, into its own copy of dist/, which `npm run build` made with the console, fonts and
// vendor bundles the tests load), and the tests run from dist/ as they always do.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['functions/identity/**/*.ts', 'functions/payment/**/*.ts'],
  testRunner: 'jest',
  jest: {
    projectType: 'custom',
    // The suites of the two services, and the monitoring test, which holds payment's sync backlog
    // line (what the alerts read) to its counts: a mutant of identity or payment is judged by them.
    config: {
      testEnvironment: 'node',
      roots: ['<rootDir>/dist/tests'],
      testMatch: ['**/tests/identity/*.test.js', '**/tests/payment/*.test.js', '**/tests/infra/monitoring.test.js'],
      testTimeout: 180000,
      setupFilesAfterEnv: ['<rootDir>/dist/tests/helpers/load-services.js'],
      // The T-SQL compile checks mock the database module before they load the code, which the line
      // above has loaded already; what they check (SQL Server's dialect) the SQLite suites do not
      // judge anyway, while every query's behaviour is judged by those suites.
      testPathIgnorePatterns: ['/dist/tests/identity/tsql\\.test\\.js$', '/dist/tests/payment/mssql-compile\\.test\\.js$'],
      // The tests are compiled JavaScript already: no Babel pass over them and the code they load.
      transform: {},
    },
    // Jest cannot relate a mutated .ts source to the compiled tests; coverage per test chooses them instead.
    enableFindRelatedTests: false,
  },
  coverageAnalysis: 'perTest',
  // Static mutants, reached only while modules load (route tables, schemas, constants) or while a
  // test file's hosts start, would need every test file per mutant: hours each. They are left out
  // of the score (docs/testing.md counts them); code a test reaches is judged by the tests reaching it.
  ignoreStatic: true,
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  buildCommand: 'npx tsc -p tsconfig.json',
  // Two test processes at most on a shared two-core machine; each starts dev hosts with Azurite.
  concurrency: 2,
  // Test files start hosts; a busy machine needs room before a slow run counts as an endless loop.
  timeoutMS: 60000,
  dryRunTimeoutMinutes: 60,
  // Results are kept between runs: a later run tests again only the mutants whose code or covering
  // tests changed, so the hours of a whole run can be spread over several sessions. They are a cache,
  // not history (git-ignored: a missing file only makes the next run test everything); what the
  // docs table needs is committed in tests/mutation/scores.json (scripts/mutation-scores.ts).
  incremental: true,
  incrementalFile: '.stryker-incremental/incremental.json',
  // The other parts' results are not copied into the sandbox: no test reads them.
  ignorePatterns: ['/.stryker-incremental'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 80, low: 60, break: null },
};
