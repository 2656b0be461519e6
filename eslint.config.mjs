// Lint for the whole repository (npm run lint; npm test runs it): typescript-eslint's recommended
// rules, the type-checked rules about promises, and the few this codebase decides otherwise, each
// with its reason.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const AMBIENT =
  "A service's code is handed its dependencies: read them from its context (ctx.config, ctx.db, ctx.now(), ctx.storage, ctx.plans...), not from the platform in force.";

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'reports/**',
      '.stryker-tmp/**',
      '.data/**',
      'test-output/**',
      'coverage/**',
      '.deploy/**',
      'client/openapi/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Type information (each file's own tsconfig: the root one, console/tsconfig.json for the console).
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its error (an unhandled rejection) and its ordering: in an async
      // handler that is a write that may not have happened when the answer goes out. `void` marks
      // the few started on purpose (a background retry), each with its own catch.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a callback's result is ignored (an event listener, forEach, a
      // constructor's executor) runs unawaited with the same consequences.
      '@typescript-eslint/no-misused-promises': 'error',
      // `await` on something that is not a promise is a mistake about what a function returns.
      '@typescript-eslint/await-thenable': 'error',
      // `require()` loads heavy modules lazily (cold start) and native ones only where needed.
      '@typescript-eslint/no-require-imports': 'off',
      // Unused names are already compile errors (tsconfig noUnusedLocals/Parameters); `_name` marks an intended one.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // A service's code is handed its dependencies (its context: shared/context.ts, functions/<service>/context.ts)
    // and reaches none through the async context: a signature says what a function needs, and the
    // Functions entry point and the dev host run the same path. The entry point (index.ts, which builds
    // the app's platform) and each service's context builder are where the platform is read.
    files: ['functions/**/*.ts'],
    ignores: ['functions/*/context.ts', 'functions/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/shared/config', '**/shared/config/index'], importNames: ['config', 'useProcessSettings'], message: AMBIENT },
            {
              group: ['**/shared/platform'],
              importNames: ['currentPlatform', 'platformInForce', 'currentTime', 'currentTimeMs', 'runInPlatform', 'setProcessPlatform'],
              message: AMBIENT,
            },
            { group: ['**/shared/sql/db'], importNames: ['db', 'closeDb'], message: AMBIENT },
            {
              group: ['**/shared/storage'],
              importNames: ['container', 'queue', 'table', 'enqueueJson', 'blobServiceClient', 'queueServiceClient', 'tableServiceClient'],
              message: AMBIENT,
            },
            { group: ['**/shared/plans'], importNames: ['plans', 'findPlan'], message: AMBIENT },
            { group: ['**/shared/azure-credential'], importNames: ['azureCredential'], message: AMBIENT },
          ],
        },
      ],
    },
  },
  {
    // The time comes from the platform's clock (a test moves it): only the clock itself reads the system's.
    files: ['functions/**/*.ts', 'shared/**/*.ts'],
    ignores: ['shared/platform.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'new Date() reads the system clock: use ctx.now() (or the clock you are handed).',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Date.now() reads the system clock: use ctx.now() (or the clock you are handed).',
        },
      ],
    },
  },
  {
    files: ['tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests read JSON answers whose shape the contract check has already verified.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
