import { defineConfig } from 'vitest/config';

/**
 * `npm run test:panels`: the suites that drive a real panel (test/panels/), as root, one file
 * at a time; each step calls the panel's own CLI, so steps get minutes, not seconds.
 */
export default defineConfig({
  test: {
    include: ['test/panels/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
