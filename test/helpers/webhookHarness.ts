import { randomBytes } from 'node:crypto';
import type { DialectName } from '../../src/adapters/db/database.ts';
import { createWebhookSender } from '../../src/adapters/outbound/webhookSender.ts';
import type { TransferRecord } from '../../src/app/chain/ports.ts';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import { updateMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import type { DispatchWebhooksDeps, WebhookDispatchConfig } from '../../src/app/webhooks/dispatchWebhooks.ts';
import type { WebhookSender } from '../../src/app/webhooks/ports.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../../src/domain/webhookRetry.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from './apiHarness.ts';
import { capturingLogger } from './logCapture.ts';
import { WebhookReceiver } from './webhookReceiver.ts';

/** Short enough that a timeout test is quick, long enough for a loaded machine to answer a local request. */
export const TEST_WEBHOOK_TIMEOUT_MS = 1_500;

export interface WebhookHarness {
  readonly api: ApiHarness;
  readonly receiver: WebhookReceiver;
  readonly merchant: { id: string; apiKey: string; webhookSecret: string };
  readonly logs: () => string;
  /** The dispatcher's dependencies: the harness's clock, store and log, a sender allowing 127.0.0.1. */
  dispatcher(overrides?: {
    sender?: WebhookSender;
    config?: Partial<WebhookDispatchConfig>;
  }): DispatchWebhooksDeps;
  /** A payment of 10 USDC through the merchant API; its own webhook URL if given (else the merchant's). */
  createPayment(options?: { webhookUrl?: string | null; apiKey?: string }): Promise<string>;
  /** Records a final transfer paying it in full and refreshes its status: returns the `payment.paid` event id. */
  pay(paymentId: string): Promise<string>;
  /** Sets the merchant's default webhook URL (private addresses allowed, as in development). */
  setMerchantWebhookUrl(url: string | null): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real app on a real database of the dialect, a real receiver on 127.0.0.1, and the dispatcher's
 * dependencies on the harness's test clock. Private addresses are allowed (as with
 * PAYLINK_WEBHOOK_ALLOW_PRIVATE=true) so that webhooks can reach the local receiver.
 */
export async function startWebhookHarness(dialect: DialectName): Promise<WebhookHarness> {
  const api = await startApiHarness(dialect, { env: { PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  const receiver = await new WebhookReceiver().start();
  const merchant = await api.merchant();
  const { logger, text } = capturingLogger();
  const sender = createWebhookSender({ allowPrivate: true, timeoutMs: TEST_WEBHOOK_TIMEOUT_MS });

  return {
    api,
    receiver,
    merchant,
    logs: text,
    dispatcher(overrides = {}) {
      return {
        webhooks: api.stores.webhooks,
        sender: overrides.sender ?? sender,
        clock: api.clock,
        logger,
        // No jitter at 0.5: delays are exactly the schedule's, so a test can move the clock to them.
        random: () => 0.5,
        config: { retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS, leaseMs: 60_000, ...overrides.config },
      };
    },
    async createPayment(options = {}) {
      const body: Record<string, unknown> = { amount: '10', currency: 'USDC', order_id: 'order-1' };
      const webhookUrl = options.webhookUrl === undefined ? receiver.url() : options.webhookUrl;
      if (webhookUrl !== null) body.webhook_url = webhookUrl;
      const response = await api.app.inject({
        method: 'POST',
        url: '/payments/api/create/',
        headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey ?? merchant.apiKey },
        payload: JSON.stringify(body),
      });
      if (response.statusCode !== 201) throw new Error(`payment not created: ${response.body}`);
      return response.json().payment_id as string;
    },
    pay: (paymentId) => payInFull(api, paymentId),
    async setMerchantWebhookUrl(url) {
      await updateMerchant(
        { merchants: api.stores.merchants, clock: api.clock, webhookAllowPrivate: true },
        merchant.id,
        { webhookUrl: url },
      );
    },
    async close() {
      if ('close' in sender) sender.close();
      await receiver.stop();
      await api.close();
    },
  };
}

let block = 1n;

/**
 * The payment paid in full by one final transfer, recorded as the chain watcher records one (without a chain):
 * returns the id of the event it owes (payment.paid).
 */
export async function payInFull(
  api: ApiHarness,
  paymentId: string,
  /** What the transfer carries; the amount due when left out. */
  amountBaseUnits?: bigint,
): Promise<string> {
  const payment = await api.stores.payments.findById(paymentId);
  if (!payment?.deposit) throw new Error('no such payment');
  const blockHash = `0x${randomBytes(32).toString('hex')}`;
  const transfer: TransferRecord = {
    id: `${TEST_CHAIN.chainId}:${blockHash}:0`,
    chainId: TEST_CHAIN.chainId,
    paymentId,
    txHash: `0x${randomBytes(32).toString('hex')}`,
    blockHash,
    tokenAddress: TEST_CHAIN.tokenAddress.toLowerCase(),
    tokenSymbol: 'USDC',
    fromAddress: '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
    toAddress: payment.deposit.depositAddress.toLowerCase(),
    amountBaseUnits: amountBaseUnits ?? payment.quote.usdcBaseUnits,
    blockNumber: block++,
    logIndex: 0,
    blockTimestamp: api.clock.now(),
    final: true,
    orphaned: false,
  };
  const now = api.clock.now();
  const changes = await api.stores.ledger.transaction(async (tx) =>
    refreshPayments(tx, await tx.insertTransfers([transfer]), now),
  );
  const eventId = changes[0]?.eventId;
  if (!eventId) throw new Error('the payment owed no event');
  return eventId;
}
