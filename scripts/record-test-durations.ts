/**
 * Records each test file's time from a full run's JSON report into test/setup/durations.json, which orders the
 * next runs longest first (test/setup/longestFirst.ts). Run it after a full run on a quiet machine when files were
 * added or their weight changed:
 *
 *   npx vitest run --reporter=default --reporter=json --outputFile.json=/tmp/suite.json
 *   npm run test:durations -- /tmp/suite.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('..', import.meta.url));
const OUTPUT = fileURLToPath(new URL('../test/setup/durations.json', import.meta.url));

const reportPath = process.argv[2];
if (!reportPath) {
  process.stderr.write('usage: npm run test:durations -- <vitest JSON report>\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8')) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
const durations = Object.fromEntries(
  report.testResults
    .map(
      (file) =>
        [relative(REPOSITORY, file.name), Math.round((file.endTime - file.startTime) / 100) * 100] as const,
    )
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(OUTPUT, `${JSON.stringify(durations, null, 2)}\n`);
process.stdout.write(`${Object.keys(durations).length} files recorded in ${relative(REPOSITORY, OUTPUT)}\n`);
