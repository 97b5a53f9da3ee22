import { skippedPartsNotice } from './skippedParts.ts';

/**
 * Says once, before any test runs, which real parts of the suite this run leaves out (outside CI, where they
 * may not be skipped at all): a run on SQLite only should never look like the whole suite.
 */
export default function setup(): void {
  const notice = skippedPartsNotice(process.env);
  if (notice) process.stderr.write(`\n${notice}\n\n`);
}
