import { defineConfig } from 'vitest/config';

/**
 * The vitest set-up for mutation testing (`npm run mutate`, stryker.config.mjs): only the unit tests beside the
 * code in src/, which need no chain, database or browser, and no globalSetup (vitest.config.ts compiles the
 * Solidity contracts first, which nothing here needs). The whole suite stays `npm test` with vitest.config.ts.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    pool: 'forks',
  },
});
