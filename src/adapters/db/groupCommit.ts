/**
 * Group commit: writes that arrive while one is in flight wait, then go to the database together, in one
 * transaction and one commit (one WAL flush, one fsync). Each caller is answered only once its own item is
 * committed, so nothing is acknowledged early. On PostgreSQL a create's insert is a round trip and a WAL flush;
 * sharing them between the creates that arrive meanwhile almost doubled create throughput in bench/api.ts.
 * (SQLite's creates are grouped the same way on its writer's thread: sqliteWriter.ts.)
 *
 * A batch that fails is retried item by item, so one bad item fails only its own caller.
 */
export function groupCommit<T>(
  write: (items: readonly T[]) => Promise<void>,
  maxBatch: number,
): (item: T) => Promise<void> {
  const waiting: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let writing = false;

  const writeAlone = async (entry: (typeof waiting)[number]) => {
    try {
      await write([entry.item]);
      entry.resolve();
    } catch (error) {
      entry.reject(error);
    }
  };

  const drain = async () => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      if (batch.length === 1) {
        await writeAlone(batch[0]!);
        continue;
      }
      try {
        await write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch {
        for (const entry of batch) await writeAlone(entry);
      }
    }
    writing = false;
  };

  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
