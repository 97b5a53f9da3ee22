/**
 * A memory store's transaction: `work` runs on the live state, and a throw puts back a copy taken before it
 * began, as a database rolls back, so that tests of crash paths see what a real store would hold.
 */
export async function memoryTransaction<S, T>(
  state: S,
  restore: (before: S) => void,
  work: () => Promise<T>,
): Promise<T> {
  const before = structuredClone(state);
  try {
    return await work();
  } catch (error) {
    restore(before);
    throw error;
  }
}
