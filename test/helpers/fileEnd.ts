/**
 * What a test file leaves for its end rather than making each test wait for it (decision 0045): a test
 * database's removal, which PostgreSQL takes a few hundred milliseconds over. `test/setup/fileEnd.ts` runs it
 * all after the file's last test, and a failure there fails the file, as it failed the test before.
 */
const pending = new Set<Promise<void>>();

/** Work under way that the file must see finished (and succeed) before it ends. */
export function finishBeforeFileEnds(work: Promise<void>): void {
  const tracked = work.finally(() => pending.delete(tracked));
  // Its failure is reported by `endOfFile`, not left unhandled in between.
  tracked.catch(() => {});
  pending.add(tracked);
}

/** Waits for what the file left under way; throws the first failure. */
export async function endOfFile(): Promise<void> {
  const outcomes = await Promise.allSettled([...pending]);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}
