import type { KeyMode } from '../../domain/credentials.ts';
import type { PaymentEventType } from '../../domain/paymentStatus.ts';
import type { WebhookEndpoint } from '../../domain/webhookEndpoint.ts';
import type { MerchantKeysetPage } from '../shared/keysetPage.ts';

/** What an update changes of an endpoint: absent fields stay as they are. */
export interface WebhookEndpointChanges {
  readonly url?: string | undefined;
  readonly description?: string | undefined;
  readonly eventTypes?: WebhookEndpoint['eventTypes'] | undefined;
  readonly enabled?: boolean | undefined;
}

/** A merchant's webhook endpoints (decision 0058): each call is bounded to one merchant and one mode. */
export interface WebhookEndpointStore {
  insert(endpoint: WebhookEndpoint): Promise<void>;
  /** Not deleted, oldest first. */
  list(merchantId: string, mode: KeyMode): Promise<WebhookEndpoint[]>;
  find(merchantId: string, mode: KeyMode, endpointId: string): Promise<WebhookEndpoint | undefined>;
  update(
    merchantId: string,
    mode: KeyMode,
    endpointId: string,
    changes: WebhookEndpointChanges,
    now: Date,
  ): Promise<WebhookEndpoint | undefined>;
  /** The new secret signs from now on; the current one too until `previousUntil` (exclusive). */
  rotateSecret(
    merchantId: string,
    mode: KeyMode,
    endpointId: string,
    newSecret: string,
    previousUntil: Date,
    now: Date,
  ): Promise<WebhookEndpoint | undefined>;
  /** Gone from lists and from every delivery still owed to it; its deliveries' history stays. */
  delete(merchantId: string, mode: KeyMode, endpointId: string, now: Date): Promise<boolean>;
}

/** An event as the events API shows it: the webhook body exactly as delivered, and whose it is. */
export interface EventRecord {
  readonly id: string;
  readonly type: PaymentEventType;
  /** The payment whose timeline the event is on; null on a subscription's own (decision 0063). */
  readonly paymentId: string | null;
  /** The subscription whose own timeline the event is on; null on a payment's. */
  readonly subscriptionId: string | null;
  readonly mode: KeyMode;
  readonly payload: string;
  readonly createdAt: Date;
}

/** What the events API filters on (decision 0058). */
export interface EventFilter {
  readonly type?: PaymentEventType | undefined;
  /** Created strictly after. */
  readonly createdAfter?: Date | undefined;
  /** Created strictly before. */
  readonly createdBefore?: Date | undefined;
}

/** One page of the merchant's events of one mode, filtered as the events API asks. */
export interface EventQuery extends MerchantKeysetPage, EventFilter {}

/** The outbox read as the merchant's event history. Nothing prunes it (decision 0058: kept 30 days at least). */
export interface EventStore {
  /** Newest first (created_at, then id). */
  list(query: EventQuery): Promise<EventRecord[]>;
  find(merchantId: string, mode: KeyMode, eventId: string): Promise<EventRecord | undefined>;
}
