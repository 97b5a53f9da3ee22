import { performance } from 'node:perf_hooks';

/** Shared by the benchmarks: timing, percentiles and formatting. Benchmarks print figures; they assert nothing. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await work();
  return { result, ms: performance.now() - start };
}

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Runs a bench file's main when it is executed directly (`node --import tsx bench/x.ts`). */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && url.endsWith(process.argv[1].replace(/^.*\/bench\//, '/bench/'));
}
