import type { MerchantStore } from '../merchants/ports.ts';
import { attemptAnswer, listWebhookEvents, MAX_EVENT_LIMIT } from './listWebhookEvents.ts';
import type { WebhookStore } from './ports.ts';

/** A merchant whose webhook endpoint does not take its events: what it owes, and what the endpoint last said. */
export interface FailingEndpoint {
  readonly merchantId: string;
  readonly merchantName: string;
  readonly url: string | null;
  /** Events still being retried after at least one failed attempt. */
  readonly retrying: number;
  /** Events whose every scheduled attempt failed: delivered only if resent. */
  readonly failed: number;
  readonly lastAttemptAt: Date | null;
  /** The last attempt's answer: `HTTP 500`, or the error when there was no answer. */
  readonly lastAnswer: string | null;
}

interface Tally {
  readonly merchantId: string;
  /** An endpoint's URL; undefined for the merchant's own webhook URL. */
  readonly url: string | undefined;
  retrying: number;
  failed: number;
  last: Date | null;
  answer: string | null;
}

/**
 * Merchants whose endpoint is failing (their webhook URL, or one of their webhook endpoints), the worst first (most events given up on, then most being retried),
 * from the newest events of each kind (at most MAX_EVENT_LIMIT of each, so the page costs the same whatever the
 * backlog; a merchant whose failures are all older than those is not named until they are resent or newer).
 */
export async function failingEndpoints(deps: {
  readonly webhooks: WebhookStore;
  readonly merchants: Pick<MerchantStore, 'find'>;
}): Promise<FailingEndpoint[]> {
  const [pending, failed, endpointPending, endpointFailed] = await Promise.all([
    listWebhookEvents(deps, { status: 'pending', limit: MAX_EVENT_LIMIT }),
    listWebhookEvents(deps, { status: 'failed', limit: MAX_EVENT_LIMIT }),
    deps.webhooks.listEndpointDeliveriesByStatus('pending', MAX_EVENT_LIMIT),
    deps.webhooks.listEndpointDeliveriesByStatus('failed', MAX_EVENT_LIMIT),
  ]);
  // One row per merchant's own URL (the events' own deliveries) and one per webhook endpoint (decision 0058).
  const byEndpoint = new Map<string, Tally>();
  const tally = (key: string, merchantId: string, url: string | undefined) => {
    const entry = byEndpoint.get(key) ?? {
      merchantId,
      url,
      retrying: 0,
      failed: 0,
      last: null,
      answer: null,
    };
    byEndpoint.set(key, entry);
    return entry;
  };
  const seen = (entry: Tally, at: Date | undefined, answer: string | null) => {
    if (at && (entry.last === null || at > entry.last)) {
      entry.last = at;
      entry.answer = answer;
    }
  };
  const count = (events: typeof pending, kind: 'retrying' | 'failed') => {
    for (const { event, attempts } of events) {
      if (kind === 'retrying' && event.attemptCount === 0) continue; // not tried yet: nothing has failed
      const entry = tally(event.merchantId, event.merchantId, undefined);
      entry[kind] += 1;
      const attempt = attempts.at(-1);
      seen(entry, attempt?.startedAt, attempt ? attemptAnswer(attempt) : null);
    }
  };
  const countEndpoints = (deliveries: typeof endpointPending, kind: 'retrying' | 'failed') => {
    for (const delivery of deliveries) {
      if (kind === 'retrying' && delivery.attemptCount === 0) continue;
      const entry = tally(`${delivery.merchantId} ${delivery.endpointId}`, delivery.merchantId, delivery.url);
      entry[kind] += 1;
      const last = delivery.lastAttempt;
      seen(
        entry,
        last?.startedAt,
        last ? (last.statusCode !== null ? `HTTP ${last.statusCode}` : last.error) : null,
      );
    }
  };
  count(pending, 'retrying');
  count(failed, 'failed');
  countEndpoints(endpointPending, 'retrying');
  countEndpoints(endpointFailed, 'failed');
  const endpoints = await Promise.all(
    [...byEndpoint.values()].map(async (entry) => {
      const { merchantId } = entry;
      const merchant = await deps.merchants.find(merchantId);
      return {
        merchantId,
        merchantName: merchant?.name ?? merchantId,
        url: entry.url ?? merchant?.webhookUrl ?? null,
        retrying: entry.retrying,
        failed: entry.failed,
        lastAttemptAt: entry.last,
        lastAnswer: entry.answer,
      };
    }),
  );
  return endpoints.sort((a, b) => b.failed - a.failed || b.retrying - a.retrying);
}
