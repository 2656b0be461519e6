// Lint for the whole repository (npm run lint; npm test runs it): typescript-eslint's recommended
// rules, with the few this codebase decides otherwise, each with its reason.
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
    rules: {
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
