import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

/**
 * Dependencies point one way: one no-restricted-imports rule per part of src/, built from
 * dependency-rules.json (the one place the directions are written; test/unit/dependency-directions.test.ts
 * checks the same table). An import string is matched by where it points: `../core/x.js` is core.
 */
function dependencyDirections() {
  const { areas, rules } = JSON.parse(readFileSync(new URL('./dependency-rules.json', import.meta.url), 'utf8'));
  const areaOfFile = (file) =>
    Object.keys(areas).find((area) => areas[area].some((member) => (member.endsWith('/') ? file.startsWith(member) : file === member)));
  // What an import string of the member looks like: `**/core/**` for a folder, `**/errors.js` for a root file.
  const importPattern = (member) => (member.endsWith('/') ? `**/${member}**` : `**/${member.replace(/\.ts$/, '.js')}`);
  const filesOf = (member) => (member.endsWith('/') ? `src/${member}**/*.ts` : `src/${member}`);
  return Object.entries(rules)
    .filter(([, rule]) => !rule.values.includes('*'))
    .map(([from, rule]) => {
      const patterns = Object.keys(areas)
        .filter((to) => to !== from && !rule.values.includes(to))
        .flatMap((to) => {
          // Files of `to` named on their own: allowed outright (values), or as types only.
          const single = (list) => list.filter((target) => target.includes('.') && areaOfFile(target) === to);
          const valueFiles = single(rule.values);
          const typeFiles = single(rule.types).filter((file) => !valueFiles.includes(file));
          const typesAllowed = rule.types.includes(to);
          const exceptions = [...valueFiles, ...(typesAllowed ? [] : typeFiles)].map((file) => `!${importPattern(file)}`);
          const message = `${from} may ${typesAllowed ? 'only `import type` from' : 'not import'} ${to} (dependency-rules.json): ${rule.why}`;
          const whole = { group: [...areas[to].map(importPattern), ...exceptions], allowTypeImports: typesAllowed, message };
          const typeOnly =
            typesAllowed || typeFiles.length === 0 ? [] : [{ group: typeFiles.map(importPattern), allowTypeImports: true, message }];
          return [whole, ...typeOnly];
        });
      return {
        files: areas[from].map(filesOf),
        rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
      };
    });
}

export default tseslint.config(
  { ignores: ['dist/', 'release/', '.bench-dist/', 'node_modules/', 'coverage/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      // `import { type A }` still loads its module under verbatimModuleSyntax; `import type` is what no-restricted-imports lets through as a type.
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },
  ...dependencyDirections(),
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
