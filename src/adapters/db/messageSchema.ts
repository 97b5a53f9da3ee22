import type { Generated } from 'kysely';

// The tables of what the service owes merchants and customers to say: the outbox of events, each webhook
// delivery attempt, and the e-mail queue (schema.ts holds the whole schema).

export interface EventsTable {
  id: string;
  /** The payment whose timeline the event is on; null on a subscription's own (migration 0052). */
  payment_id: string | null;
  /** The subscription whose own timeline the event is on (migration 0052); null on a payment's. */
  subscription_id: string | null;
  merchant_id: string;
  sequence: number;
  type: string;
  /** The webhook body, serialized once so every delivery attempt sends the same bytes. */
  payload: string;
  created_at: string;
  /** Delivery state (migration 0003); defaults make every new event owed a delivery. */
  delivery_status: Generated<string>;
  attempt_count: Generated<number>;
  schedule_step: Generated<number>;
  next_attempt_at: string | null;
  claimed_until: string | null;
  delivered_at: string | null;
}

/** One row per webhook delivery attempt. */
export interface WebhookAttemptsTable {
  event_id: string;
  attempt_number: number;
  url: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  status_code: number | null;
  outcome: string | null;
  error: string | null;
  response_body: string | null;
  next_attempt_at: string | null;
}

/** The e-mail queue (migration 0020): each message rendered when queued, with its delivery state. */
export interface EmailMessagesTable {
  id: string;
  kind: string;
  merchant_id: string;
  payment_id: string | null;
  refund_id: string | null;
  recipient: string;
  language: string;
  subject: string;
  text_body: string;
  html_body: string;
  status: Generated<string>;
  attempt_count: Generated<number>;
  next_attempt_at: string | null;
  claimed_until: string | null;
  last_error: string | null;
  last_response_code: number | null;
  message_id: string;
  smtp_response: string | null;
  created_at: string;
  sent_at: string | null;
  failed_at: string | null;
}

/** A merchant's webhook endpoint of one mode (migration 0046). */
export interface WebhookEndpointsTable {
  id: string;
  merchant_id: string;
  mode: 'live' | 'test';
  url: string;
  description: Generated<string>;
  /** `*`: every event type; else the types wanted, space-separated. */
  event_types: Generated<string>;
  /** 1: events are sent to it; 0: none are, and what it is owed waits until it is enabled again. */
  enabled: Generated<number>;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/**
 * The columns of a webhook's delivery state: an event's own delivery (its payment's or account's URL) and each
 * endpoint's delivery of it are claimed, retried and finished the same way.
 */
export type DeliveryStateColumns = Pick<
  EventsTable,
  'delivery_status' | 'attempt_count' | 'schedule_step' | 'next_attempt_at' | 'claimed_until' | 'delivered_at'
>;

/** What one event owes one endpoint, with its own delivery state (migration 0046). */
export interface WebhookDeliveriesTable extends DeliveryStateColumns {
  id: string;
  event_id: string;
  endpoint_id: string;
  created_at: string;
}

/** One row per attempt of an endpoint's delivery. */
export interface WebhookDeliveryAttemptsTable extends Omit<WebhookAttemptsTable, 'event_id' | 'url'> {
  delivery_id: string;
  url: string;
}
