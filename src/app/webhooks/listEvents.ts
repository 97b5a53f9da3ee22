import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { decodeCursor, encodeCursor } from '../payments/listPayments.ts';
import type { PageRequest } from '../shared/keysetPage.ts';
import type { EventFilter, EventRecord, EventStore } from './endpointPorts.ts';

/** An event id as newEventId makes them (and as a cursor may name them). */
const EVENT_ID_PATTERN = /^evt_[0-9A-Za-z]{1,40}$/;

/**
 * The merchant's events of one mode, newest first, with the payment list's opaque cursors (bound to the
 * merchant, the mode and the filters): what a receiver that was down reconciles from.
 */
export async function listEvents(
  deps: { readonly events: EventStore },
  merchantId: string,
  mode: KeyMode,
  input: PageRequest & EventFilter,
): Promise<{ events: EventRecord[]; nextCursor: string | null }> {
  const fingerprint = JSON.stringify([
    'events',
    merchantId,
    mode,
    input.type ?? null,
    input.createdAfter?.getTime() ?? null,
    input.createdBefore?.getTime() ?? null,
  ]);
  const after =
    input.cursor === undefined ? undefined : decodeCursor(input.cursor, fingerprint, EVENT_ID_PATTERN);
  const rows = await deps.events.list({
    merchantId,
    mode,
    type: input.type,
    createdAfter: input.createdAfter,
    createdBefore: input.createdBefore,
    after,
    limit: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    events: page,
    nextCursor:
      rows.length > input.limit && last
        ? encodeCursor({ createdAt: last.createdAt, id: last.id }, fingerprint)
        : null,
  };
}

/** One of the merchant's events of that mode; another merchant's, the other mode's and unknown ids are one 404. */
export async function getEvent(
  deps: { readonly events: EventStore },
  merchantId: string,
  mode: KeyMode,
  eventId: string,
): Promise<EventRecord> {
  const event = await deps.events.find(merchantId, mode, eventId);
  if (!event) throw new PaylinkError('NOT_FOUND', 'Event not found');
  return event;
}
