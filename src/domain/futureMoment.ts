import { ValidationError } from './errors.ts';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A moment a request sets in the future (a link's end, a key's expiry): an ISO 8601 date-time with its offset,
 * later than `now`; absent or empty: none (null).
 */
export function parseFutureMoment(field: string, input: string | undefined, now: Date): Date | null {
  if (input === undefined || input === '') return null;
  const date = ISO_DATE_TIME.test(input) ? new Date(input) : undefined;
  if (!date || Number.isNaN(date.getTime()))
    throw new ValidationError(field, 'must be an ISO 8601 date-time such as 2026-12-31T00:00:00Z');
  if (date.getTime() <= now.getTime()) throw new ValidationError(field, 'must be in the future');
  return date;
}
