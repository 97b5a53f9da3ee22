import type { KeyMode } from '../../domain/credentials.ts';

/**
 * A row's place in a newest-first keyset listing (created_at, then id, descending): the next page starts after
 * it. Payments, refunds and links are listed this way (adapters/db/keyset.ts).
 */
export interface KeysetPosition {
  readonly createdAt: Date;
  readonly id: string;
}

/** A page as a listing's caller asks for it: how many rows, and where the previous page ended. */
export interface PageRequest {
  readonly limit: number;
  /** `nextCursor` of the previous page: opaque, and bound to the listing and its filters. */
  readonly cursor?: string | undefined;
}

/** A creation range as an export's `from` (inclusive) and `to` (exclusive) give it; absent ends are open. */
export interface CreatedRange {
  /** Created at or after (an export's `from`, a date range's start). */
  readonly createdFrom?: Date | undefined;
  /** Created strictly before (an export's `to`, a date range's end). */
  readonly createdBefore?: Date | undefined;
}

/** One page of a merchant's rows of one mode, newest first, after a keyset position: what its store reads. */
export interface MerchantKeysetPage {
  readonly merchantId: string;
  readonly mode: KeyMode;
  readonly after?: KeysetPosition | undefined;
  readonly limit: number;
}
