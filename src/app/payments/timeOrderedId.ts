import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Ids' worth of random bytes drawn from the system at a time. */
const IDS_PER_DRAW = 256;
const ID_RANDOM_BYTES = 16;
const pool = new Uint8Array(IDS_PER_DRAW * ID_RANDOM_BYTES);
let drawn = IDS_PER_DRAW;

/**
 * A new time-ordered id (UUIDv7, decision 0017): the `uuid` package's layout and encoding, with its random
 * bytes taken from a pool refilled 256 ids at a time, as Node's own `randomUUID` does. Asking the system for 16
 * bytes per id (the package's default) is a system call on every create (figures in docs/performance.md). The random bytes
 * are as unpredictable either way; the ids made in one millisecond are in no particular order among themselves.
 */
export function timeOrderedId(): string {
  if (drawn === IDS_PER_DRAW) {
    randomFillSync(pool);
    drawn = 0;
  }
  const random = pool.subarray(drawn * ID_RANDOM_BYTES, (drawn + 1) * ID_RANDOM_BYTES);
  drawn += 1;
  return uuidv7({ random });
}
