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

/**
 * Merchants whose endpoint is failing, the worst first (most events given up on, then most being retried),
 * from the newest events of each kind (at most MAX_EVENT_LIMIT of each, so the page costs the same whatever the
 * backlog; a merchant whose failures are all older than those is not named until they are resent or newer).
 */
export async function failingEndpoints(deps: {
  readonly webhooks: WebhookStore;
  readonly merchants: Pick<MerchantStore, 'find'>;
}): Promise<FailingEndpoint[]> {
  const [pending, failed] = await Promise.all([
    listWebhookEvents(deps, { status: 'pending', limit: MAX_EVENT_LIMIT }),
    listWebhookEvents(deps, { status: 'failed', limit: MAX_EVENT_LIMIT }),
  ]);
  const byMerchant = new Map<
    string,
    { retrying: number; failed: number; last: FailingEndpoint['lastAttemptAt']; answer: string | null }
  >();
  const count = (events: typeof pending, kind: 'retrying' | 'failed') => {
    for (const { event, attempts } of events) {
      if (kind === 'retrying' && event.attemptCount === 0) continue; // not tried yet: nothing has failed
      const entry = byMerchant.get(event.merchantId) ?? { retrying: 0, failed: 0, last: null, answer: null };
      entry[kind] += 1;
      const attempt = attempts.at(-1);
      if (attempt && (entry.last === null || attempt.startedAt > entry.last)) {
        entry.last = attempt.startedAt;
        entry.answer = attemptAnswer(attempt);
      }
      byMerchant.set(event.merchantId, entry);
    }
  };
  count(pending, 'retrying');
  count(failed, 'failed');
  const endpoints = await Promise.all(
    [...byMerchant].map(async ([merchantId, entry]) => {
      const merchant = await deps.merchants.find(merchantId);
      return {
        merchantId,
        merchantName: merchant?.name ?? merchantId,
        url: merchant?.webhookUrl ?? null,
        retrying: entry.retrying,
        failed: entry.failed,
        lastAttemptAt: entry.last,
        lastAnswer: entry.answer,
      };
    }),
  );
  return endpoints.sort((a, b) => b.failed - a.failed || b.retrying - a.retrying);
}
