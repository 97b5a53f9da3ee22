import { createHash } from 'node:crypto';
import type { KeyMode } from '../../domain/credentials.ts';
import { ValidationError } from '../../domain/errors.ts';
import type { Payment } from '../../domain/payment.ts';
import type { PaymentState, PaymentStatus } from '../../domain/paymentStatus.ts';
import type { TransferRecord } from '../chain/ports.ts';
import type { CreatedRange, PageRequest } from '../shared/keysetPage.ts';
import { currentState, type PaymentStateDeps } from './getPaymentStatus.ts';
import type { StoredStatusMatch } from './ports.ts';

export interface ListPaymentsInput extends CreatedRange, PageRequest {
  /** Only payments whose status, derived now, is this one. */
  readonly status?: PaymentStatus | undefined;
  readonly orderId?: string | undefined;
  /** Only payments made through this reusable link. */
  readonly linkId?: string | undefined;
  /** Only payments created strictly after this moment. */
  readonly createdAfter?: Date | undefined;
  /** The caller's key mode: only payments of that mode are listed (default live). */
  readonly mode?: KeyMode | undefined;
}

export interface ListedPayment {
  readonly payment: Payment;
  readonly state: PaymentState<TransferRecord>;
}

export interface ListPaymentsResult {
  readonly payments: readonly ListedPayment[];
  /** Null on the last page. */
  readonly nextCursor: string | null;
}

export const MAX_LIST_LIMIT = 100;
/** Bound on store reads for one page when the status filter drops rows (see `listPayments`). */
const MAX_READS_PER_PAGE = 5;

/**
 * A merchant's payments, newest first, one page at a time (docs/decisions/0008-observability-and-listing.md).
 *
 * Keyset pagination on (created_at, id): a payment created while a client pages through lands before its first
 * page, never shifting later ones. Each payment comes with its status derived now, like the status endpoint;
 * the status filter is applied to that derived status. The store is asked for a superset (the stored status
 * lags the clock by one expirer pass: a stored `pending` may be `expired` now, a stored `processing` may be
 * `failed`), and rows whose derived status differs are skipped — so a page can hold fewer than `limit`
 * payments while `nextCursor` is still set (rare: only `processing` and `failed` can drop rows).
 */
export async function listPayments(
  deps: PaymentStateDeps,
  /** Null: every merchant's payments (the operator's console). */
  merchantId: string | null,
  input: ListPaymentsInput,
): Promise<ListPaymentsResult> {
  if (!Number.isSafeInteger(input.limit) || input.limit < 1 || input.limit > MAX_LIST_LIMIT) {
    throw new ValidationError('limit', `must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  const fingerprint = filterFingerprint(merchantId, input);
  let position = input.cursor === undefined ? undefined : decodeCursor(input.cursor, fingerprint);
  const now = deps.clock.now();
  const statuses = input.status === undefined ? undefined : storedStatusesFor(input.status, now);
  const page: ListedPayment[] = [];
  let more = false;
  for (let read = 0; read < MAX_READS_PER_PAGE; read += 1) {
    const wanted = input.limit - page.length;
    // One row more than wanted tells whether anything follows this page.
    const rows = await deps.payments.listForMerchant({
      merchantId,
      mode: input.mode ?? 'live',
      statuses,
      orderId: input.orderId,
      linkId: input.linkId,
      createdAfter: input.createdAfter,
      createdFrom: input.createdFrom,
      createdBefore: input.createdBefore,
      after: position,
      limit: wanted + 1,
    });
    const examined = rows.slice(0, wanted);
    const states = await Promise.all(examined.map((payment) => currentState(deps, payment)));
    examined.forEach((payment, i) => {
      const state = states[i]!;
      if (input.status === undefined || state.status === input.status) page.push({ payment, state });
    });
    const last = examined.at(-1);
    if (last) position = { createdAt: last.createdAt, id: last.id };
    more = rows.length > wanted;
    if (!more || page.length >= input.limit) break;
  }
  return {
    payments: page,
    nextCursor: more && position ? encodeCursor(position, fingerprint) : null,
  };
}

/** Stored statuses that can derive to `status` now: exactly the derivations the clock alone can cause. */
function storedStatusesFor(status: PaymentStatus, now: Date): StoredStatusMatch[] {
  switch (status) {
    case 'pending':
      return [{ status: 'pending', expiresAtOrAfter: now }];
    case 'expired':
      return [{ status: 'expired' }, { status: 'pending', expiresBefore: now }];
    case 'failed':
      return [{ status: 'failed' }, { status: 'processing', expiresBefore: now }];
    case 'processing':
    case 'paid':
      return [{ status }];
  }
}

/**
 * The cursor is opaque to clients: `<base64url of [version, created_at ms, id]>.<check>`, where the check is a
 * hash of the position together with the merchant and the filters. A cursor edited by hand, or replayed with
 * other filters or by another merchant, is refused rather than silently yielding a page of something else.
 * The check is not a signature (there is no secret: any API process must accept any other's cursors): a
 * cursor is a position, not a credential — the query enforces the merchant scope whatever the cursor says.
 */
const CURSOR_VERSION = 1;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CURSOR_PATTERN = /^([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{22})$/;

function filterFingerprint(merchantId: string | null, input: ListPaymentsInput): string {
  // A live cursor replayed with a test key (or the reverse) is refused like any other filter change.
  const filters = [
    merchantId,
    ...(input.mode === 'test' ? ['test'] : []),
    input.status ?? null,
    input.orderId ?? null,
    input.createdAfter?.getTime() ?? null,
    // Appended only when set, so cursors handed out before these filters existed stay valid.
    ...(input.createdFrom ? [['from', input.createdFrom.getTime()]] : []),
    ...(input.createdBefore ? [['before', input.createdBefore.getTime()]] : []),
    ...(input.linkId ? [['link', input.linkId]] : []),
  ];
  return JSON.stringify(filters);
}

function cursorCheck(position: string, fingerprint: string): string {
  return createHash('sha256').update(`${fingerprint}\n${position}`).digest('base64url').slice(0, 22);
}

export function encodeCursor(position: { createdAt: Date; id: string }, fingerprint: string): string {
  const body = [CURSOR_VERSION, position.createdAt.getTime(), position.id];
  const encoded = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  return `${encoded}.${cursorCheck(encoded, fingerprint)}`;
}

/** `idPattern`: what the listing's ids look like (UUIDs, unless the listing says otherwise). */
export function decodeCursor(
  cursor: string,
  fingerprint: string,
  idPattern: RegExp = UUID_PATTERN,
): { createdAt: Date; id: string } {
  const invalid = () => new ValidationError('cursor', 'is not a cursor returned for this query');
  const match = CURSOR_PATTERN.exec(cursor);
  if (!match || cursorCheck(match[1]!, fingerprint) !== match[2]) throw invalid();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(match[1]!, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(body) || body.length !== 3) throw invalid();
  const [version, createdAtMs, id] = body as unknown[];
  if (
    version !== CURSOR_VERSION ||
    typeof createdAtMs !== 'number' ||
    !Number.isSafeInteger(createdAtMs) ||
    createdAtMs < 0 ||
    createdAtMs > 8.64e15 ||
    typeof id !== 'string' ||
    !idPattern.test(id)
  ) {
    throw invalid();
  }
  return { createdAt: new Date(createdAtMs), id };
}
