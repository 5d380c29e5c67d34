import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-panel suites need root and a panel: npm run test:panels (vitest.panels.config.ts).
    exclude: [...configDefaults.exclude, 'test/panels/**'],
    // Integration tests start real servers and SQLite files; give them room on 2-core machines.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
