/**
 * What a test file leaves for its end rather than making each test wait for it (decision 0045): a test
 * database's removal, which PostgreSQL takes a few hundred milliseconds over, and the chains kept for the
 * file's next test (test/helpers/deployedChain.ts). `test/setup/fileEnd.ts` runs it all after the file's last
 * test, and a failure there fails the file, as it failed the test before.
 */
const pending = new Set<Promise<void>>();
const closers = new Set<() => Promise<void>>();

/** Work under way that the file must see finished (and succeed) before it ends. */
export function finishBeforeFileEnds(work: Promise<void>): void {
  const tracked = work.finally(() => pending.delete(tracked));
  // Its failure is reported by `endOfFile`, not left unhandled in between.
  tracked.catch(() => {});
  pending.add(tracked);
}

/** Runs `close` once the file's tests are over. */
export function atFileEnd(close: () => Promise<void>): void {
  closers.add(close);
}

/** Closes what the file kept and waits for what it left under way; throws the first failure. */
export async function endOfFile(): Promise<void> {
  const closing = [...closers].map((close) => close());
  closers.clear();
  const outcomes = await Promise.allSettled([...closing, ...pending]);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}
