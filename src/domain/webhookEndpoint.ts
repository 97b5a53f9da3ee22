import { type KeyMode, randomToken } from './credentials.ts';
import { ValidationError } from './errors.ts';
import { PAYMENT_EVENT_TYPES, type PaymentEventType } from './paymentStatus.ts';

/**
 * A merchant's webhook endpoint (decision 0058): one of several URLs of one mode, each with its own signing
 * secret and the event types it wants, beside the payment's own `webhook_url` and the account's default, which
 * keep receiving every event as before.
 */
export interface WebhookEndpoint {
  readonly id: string;
  readonly merchantId: string;
  readonly mode: KeyMode;
  readonly url: string;
  readonly description: string;
  /** `all`: every event type, present and future; else only these. */
  readonly eventTypes: 'all' | readonly PaymentEventType[];
  /** Disabled: no new event is sent to it, and what it is owed waits until it is enabled again. */
  readonly enabled: boolean;
  readonly secret: string;
  /** The secret a rotation replaced: it signs too until `until` (exclusive). */
  readonly previousSecret: { readonly secret: string; readonly until: Date } | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Endpoints a merchant may have per mode: enough for every integration, bounded so one event's fan-out is too. */
export const MAX_WEBHOOK_ENDPOINTS = 16;
export const MAX_ENDPOINT_DESCRIPTION_LENGTH = 200;
/** The event types field's word for "all of them", as the API takes it. */
export const ALL_EVENT_TYPES = '*';

export function newWebhookEndpointId(): string {
  return `we_${randomToken(22)}`;
}

/** Whether the endpoint wants events of `type`. */
export function endpointWants(
  endpoint: Pick<WebhookEndpoint, 'eventTypes'>,
  type: PaymentEventType,
): boolean {
  return endpoint.eventTypes === 'all' || endpoint.eventTypes.includes(type);
}

/**
 * The event types asked for (`["*"]` or absent: all), each once, in the order of the event list; an unknown one
 * is refused by name, so a typo does not silently subscribe to nothing.
 */
export function parseEventTypes(input: readonly string[] | undefined): WebhookEndpoint['eventTypes'] {
  if (input === undefined || (input.length === 1 && input[0] === ALL_EVENT_TYPES)) return 'all';
  if (input.length === 0) {
    throw new ValidationError('event_types', `must name at least one event type, or "${ALL_EVENT_TYPES}"`);
  }
  const known: readonly string[] = PAYMENT_EVENT_TYPES;
  const unknown = input.find((type) => !known.includes(type));
  if (unknown !== undefined) {
    throw new ValidationError(
      'event_types',
      `has an unknown event type "${unknown}": use "${ALL_EVENT_TYPES}" or some of ${PAYMENT_EVENT_TYPES.join(', ')}`,
    );
  }
  return PAYMENT_EVENT_TYPES.filter((type) => input.includes(type));
}

/** The event types as stored: `*`, or the types space-separated. */
export function eventTypesText(types: WebhookEndpoint['eventTypes']): string {
  return types === 'all' ? ALL_EVENT_TYPES : types.join(' ');
}

/** The stored text read back; a type no longer known is dropped rather than failing every delivery. */
export function eventTypesOf(text: string): WebhookEndpoint['eventTypes'] {
  if (text === ALL_EVENT_TYPES) return 'all';
  const words = text.split(' ');
  return PAYMENT_EVENT_TYPES.filter((type) => words.includes(type));
}

export function parseEndpointDescription(input: string | undefined): string {
  const text = (input ?? '').trim();
  if (text.length > MAX_ENDPOINT_DESCRIPTION_LENGTH) {
    throw new ValidationError('description', `must be at most ${MAX_ENDPOINT_DESCRIPTION_LENGTH} characters`);
  }
  return text;
}
