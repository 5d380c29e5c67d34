import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'release/', '.bench-dist/', 'node_modules/', 'coverage/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The provider client never knows its test double: starting the sandbox is the wiring's choice (src/wiring/provider.ts).
    files: ['src/provider/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/sandbox/**'], message: 'src/provider must not import the sandbox' }] }],
    },
  },
  {
    // The CLI and benchmarks talk to a terminal on purpose.
    files: ['src/cli.ts', 'src/cli/**', 'bench/**', 'bin/**', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Plain JavaScript launchers run on Node.
    files: ['bin/**/*.js', 'bench/**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', performance: 'readonly' } },
  },
  {
    // The pages' own scripts run in the browser.
    files: ['views/static/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        requestAnimationFrame: 'readonly',
        cancelAnimationFrame: 'readonly',
      },
    },
  },
);
