import type { Clock } from '../shared/ports.ts';
import type { ApiKeyRecord, MerchantStore } from './ports.ts';

/** "Last used" is kept to the minute: a write per request would cost every request a write (decision 0056). */
export const KEY_USE_INTERVAL_MS = 60_000;
const MAX_REMEMBERED = 10_000;

/** Records that a key authenticated a request; never waits, never fails the request. */
export type KeyUsage = (key: Pick<ApiKeyRecord, 'id' | 'lastUsedAt'>) => void;

/**
 * A key's use written at most once per KEY_USE_INTERVAL_MS: this process remembers when it last wrote each key
 * (the key's record may come from a cache that does not see the write), and the write itself is conditional,
 * so other processes add at most one write each per interval. A failed write is only reported: the next use
 * after the interval tries again.
 */
export function keyUsageRecorder(
  merchants: Pick<MerchantStore, 'touchKey'>,
  clock: Clock,
  onError: (error: unknown) => void,
): KeyUsage {
  const writtenAt = new Map<string, number>();
  return (key) => {
    const now = clock.now();
    const since = now.getTime() - KEY_USE_INTERVAL_MS;
    const last = Math.max(writtenAt.get(key.id) ?? Number.NEGATIVE_INFINITY, key.lastUsedAt?.getTime() ?? 0);
    if (last > since) return;
    writtenAt.delete(key.id);
    if (writtenAt.size >= MAX_REMEMBERED) writtenAt.delete(writtenAt.keys().next().value!);
    writtenAt.set(key.id, now.getTime());
    merchants.touchKey(key.id, now, new Date(since)).catch(onError);
  };
}
