import type { Logger } from 'pino';
import type { RefundNoticeSettings } from '../../src/app/email/refundNotices.ts';
import { announceRefunds } from '../../src/app/refunds/announceRefunds.ts';
import { settleOnce } from '../../src/app/settlement/settleOnce.ts';
import type { ChainHarness } from './chainHarness.ts';
import { freshSettler } from './settler.ts';

/**
 * What the worker does for refunds in a pass or two, with the real parts: watch to finality, flush the
 * forwarders and apply the flush once final, then tell the merchant of each refund whose status moved.
 * Returns the ids of the refunds announced.
 */
export async function refundWorkerPasses(
  h: ChainHarness,
  logger: Logger,
  refundNotices?: RefundNoticeSettings,
): Promise<string[]> {
  await h.finalizeAll();
  await h.poll();
  const deps = freshSettler(h, logger);
  const options = {
    chainId: h.anvil.chain.id,
    payoutPolicy: { dustThresholdBaseUnits: 0n, delayedAfterMs: 10 * 60_000 },
    relayerLowBalanceWei: 10n ** 18n,
    stuckAfterMs: 60_000,
  };
  await settleOnce(deps, options);
  await h.finalizeAll();
  await settleOnce(deps, options);
  await h.poll();
  return announceRefunds({ refunds: h.stores.refunds, clock: h.clock, refundNotices });
}
