import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/setup/longestFirst.ts';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Integration tests start real servers, databases and chains; their timeouts are generous on purpose and
    // no test asserts on time taken (the machines are shared and noisy; speed lives in bench/).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One process per worker for all its files, not one per file: each file importing the service's module graph
    // again took 674 s of the workers' 3,640 s (issue 37, docs/testing.md). Files must therefore leave nothing
    // behind: no fake timers, no environment, no module state that changes what the next file sees.
    poolOptions: { forks: { isolate: false } },
    // Three files at a time, whatever the core count (vitest's default on two cores is one): most of a file's time
    // is spent waiting on chains, browsers, databases and child processes, so files overlap well even on two
    // cores (issue 37: the whole suite took 451 s at three against 792 s at two). Timeouts and polls are bounds
    // against a hang, never speed limits, so a busier machine makes a file slower, not red.
    maxWorkers: 3,
    // Equal to maxWorkers: without isolation, tinypool would otherwise end an idle worker while a file is still
    // being handed to it ("Terminating worker thread").
    minWorkers: 3,
    // Longest files first, from the recorded times when vitest's own cache of the last run is missing (CI).
    sequence: { sequencer: LongestFirst },
    globalSetup: ['test/setup/announceSkippedParts.ts', 'test/setup/compileContracts.ts'],
    // Waits, at each file's end, for the databases its tests left being dropped (test/helpers/fileEnd.ts).
    setupFiles: ['test/setup/fileEnd.ts'],
  },
});
