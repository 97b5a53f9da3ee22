import type { PaymentChangeMarks } from '../../app/payments/ports.ts';
import type { KeyMode } from '../../domain/credentials.ts';

/** One status response, as sent, and what it stays valid for. */
export interface StatusRead {
  readonly merchantId: string;
  readonly mode: KeyMode;
  /** The serialized response body. */
  readonly body: string;
  /** Past this, the clock alone could change the derived status (expiry); null: never. */
  readonly holdsUntil: Date | null;
}

interface Entry extends StatusRead {
  readonly mark: string;
}

export interface StatusReadCache {
  /** The body last sent for this payment to this merchant and mode, if the payment has not changed since. */
  lookup(paymentId: string, merchantId: string, mode: KeyMode, now: Date): string | undefined;
  /** Taken before reading the payment, and handed to `remember` with what was read. */
  mark(paymentId: string): string | null;
  remember(paymentId: string, mark: string | null, read: StatusRead): void;
}

/**
 * Status responses kept, serialized, until their payment changes (docs/decisions/0010-status-read-cache.md).
 * Merchants poll status, and most polls find nothing new; a hit costs a map lookup and the change mark instead
 * of two queries, the derivation and serialization. The mark guards the order of events: a read is only kept if
 * no change was signalled while it ran, so it can never keep data older than a change it missed. A payment read
 * by another merchant or in the other mode is a miss, and the database gives the 404.
 */
export function statusReadCache(marks: PaymentChangeMarks, maxEntries: number): StatusReadCache {
  const entries = new Map<string, Entry>();
  return {
    lookup(paymentId, merchantId, mode, now) {
      const entry = entries.get(paymentId);
      if (!entry || entry.merchantId !== merchantId || entry.mode !== mode) return undefined;
      if (entry.holdsUntil !== null && now.getTime() > entry.holdsUntil.getTime()) return undefined;
      return marks.markOf(paymentId) === entry.mark ? entry.body : undefined;
    },
    mark: (paymentId) => marks.markOf(paymentId),
    remember(paymentId, mark, read) {
      if (mark === null || marks.markOf(paymentId) !== mark) return;
      entries.delete(paymentId);
      // Oldest first in a Map: past the bound, the first kept goes.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(paymentId, { ...read, mark });
    },
  };
}
