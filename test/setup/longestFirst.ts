import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Each file's time in a full run on a quiet machine, in milliseconds, by its path from the repository's root:
 * written by `npm run test:durations` from a run's JSON report.
 */
const RECORDED = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<
  string,
  number
>;

/**
 * Runs the longest files first, so that the last files to start are short and the workers end together: the
 * suite's time is that of its busiest worker. Vitest does this itself from its cache of the last run, but a clean
 * clone (CI) has none and falls back to the largest file first, which put the page walk (a small file, 44 s) last
 * and alone at the end of the run (issue 37, docs/testing.md). The cache still wins when it knows the file (it is
 * this machine's own figure); otherwise the recorded time; a file in neither (a new one) runs first, as vitest
 * runs unknown files. Failed files first, as vitest does, for the developer's loop.
 */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const known = (spec: TestSpecification) => {
      const path = relative(config.root, spec.moduleId);
      const cached = cache.getFileTestResults(`${spec.project.name}:${path}`);
      return { failed: cached?.failed ?? false, ms: cached?.duration ?? RECORDED[path] };
    };
    const order = new Map(files.map((spec) => [spec, known(spec)]));
    return [...files].sort((a, b) => {
      const x = order.get(a)!;
      const y = order.get(b)!;
      if (x.failed !== y.failed) return x.failed ? -1 : 1;
      if (x.ms === undefined || y.ms === undefined)
        return x.ms === undefined ? (y.ms === undefined ? 0 : -1) : 1;
      return y.ms - x.ms;
    });
  }
}
