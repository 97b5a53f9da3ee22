import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Integration tests start real servers, databases and chains; their timeouts are generous on purpose and
    // no test asserts on time taken (the machines are shared and noisy; speed lives in bench/).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/setup/announceSkippedParts.ts', 'test/setup/compileContracts.ts'],
  },
});
