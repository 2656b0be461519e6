// Lint for the whole repository (npm run lint; npm test runs it): typescript-eslint's recommended
// rules, the type-checked rules about promises, and the few this codebase decides otherwise, each
// with its reason.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    files: ['tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests read JSON answers whose shape the contract check has already verified.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
