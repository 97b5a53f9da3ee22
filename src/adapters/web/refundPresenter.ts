import type { RefundRecord } from '../../app/refunds/ports.ts';
import { deriveRefundStatus, refundFundingOf } from '../../domain/refund.ts';
import { refundFields } from '../../domain/refundEvent.ts';
import { refundFundingLink } from './refundView.ts';

function refundClaimUrl(checkoutUrl: string, refundId: string): string {
  return `${checkoutUrl}/refunds/${refundId}`;
}

/** A refund as the merchant API shows it: its fields, then how to get it going (claim link or funding). */
export function refundResponse(record: RefundRecord, now: Date, checkoutUrl: string) {
  const { refund, deposit } = record;
  const funding = refundFundingOf(deposit);
  const status = deriveRefundStatus(refund, funding, now);
  const where = deposit?.deposit;
  return {
    ...refundFields(refund, funding, status),
    ...(status === 'awaiting_address'
      ? {
          claim_url: refundClaimUrl(checkoutUrl, refund.id),
          claim_expires_at: refund.claimExpiresAt.toISOString(),
        }
      : {}),
    ...(where
      ? {
          deposit_address: where.depositAddress,
          chain_id: where.chainId,
          token_address: where.tokenAddress,
          funding_uri: refundFundingLink(record),
          funding_qr_url: `${refundClaimUrl(checkoutUrl, refund.id)}/funding.svg`,
        }
      : {}),
  };
}
