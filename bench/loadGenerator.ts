import autocannon from 'autocannon';

/**
 * One load-generator run, in its own process (bench/api.ts forks it): warm-up, then the measured run, reported
 * to the parent over IPC. A fresh process per run carries no heap from the runs before, and this file imports
 * nothing but autocannon, so the client is the same small program in every run.
 */
export interface LoadRun {
  readonly options: autocannon.Options;
  readonly warmupSeconds: number;
  readonly seconds: number;
}

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

const run = JSON.parse(process.argv[2] ?? '{}') as LoadRun;
await autocannon({ ...run.options, duration: run.warmupSeconds });
const result = await autocannon({ ...run.options, duration: run.seconds });
const measured: LoadResult = {
  requestsPerSecond: result.requests.average,
  p99Ms: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors + result.timeouts,
};
process.send?.(measured, () => process.exit(0));
