import type { RefundRecord } from '../../app/refunds/ports.ts';
import { formatUsdc } from '../../domain/money.ts';
import { deriveRefundStatus, type RefundStatus, refundFundingOf } from '../../domain/refund.ts';
import { eip681TransferLink } from './eip681.ts';
import { type CheckoutNetwork, explorerTxUrl } from './network.ts';

/** What the claim page shows of a refund, as of one instant. */
export interface RefundView {
  readonly refundId: string;
  readonly status: RefundStatus;
  readonly merchantName: string;
  readonly amountBaseUnits: bigint;
  /** What reached the customer so far (all of the funding, which may exceed the amount). */
  readonly sentBaseUnits: bigint;
  /** The customer's address, once given (checksummed). */
  readonly address: string | null;
  readonly claimExpiresAt: Date;
  readonly tokenAddress: string;
  readonly network: CheckoutNetwork;
  readonly txid: string | null;
  readonly txUrl: string | null;
}

export function refundView(input: {
  record: RefundRecord;
  merchantName: string;
  network: CheckoutNetwork;
  tokenAddress: string;
  now: Date;
}): RefundView {
  const { refund, deposit } = input.record;
  const funding = refundFundingOf(deposit);
  return {
    refundId: refund.id,
    status: deriveRefundStatus(refund, funding, input.now),
    merchantName: input.merchantName,
    amountBaseUnits: refund.amountBaseUnits,
    sentBaseUnits: funding.sentBaseUnits,
    address: refund.address,
    claimExpiresAt: refund.claimExpiresAt,
    tokenAddress: input.tokenAddress,
    network: input.network,
    txid: funding.txid,
    txUrl: funding.txid ? explorerTxUrl(input.network.explorerUrl, funding.txid) : null,
  };
}

/**
 * The body of `GET /refunds/:id/status.json` and of a claim's answer: only what the page shows. Never the
 * payment, the reason, or anything else of the merchant's — anyone holding the link can read this.
 */
export interface RefundStatusJson {
  readonly refund_id: string;
  readonly status: RefundStatus;
  readonly amount: string;
  readonly amount_sent: string;
  readonly address: string | null;
  readonly txid: string | null;
  readonly tx_url: string | null;
}

export function refundStatusJson(view: RefundView): RefundStatusJson {
  return {
    refund_id: view.refundId,
    status: view.status,
    amount: formatUsdc(view.amountBaseUnits),
    amount_sent: formatUsdc(view.sentBaseUnits),
    address: view.address,
    txid: view.txid,
    tx_url: view.txUrl,
  };
}

/** The merchant's funding request for a refund (EIP-681: token, chain, deposit address, amount); none before its address is known. */
export function refundFundingLink(record: RefundRecord): string | undefined {
  const where = record.deposit?.deposit;
  if (!where) return undefined;
  return eip681TransferLink({
    tokenAddress: where.tokenAddress,
    chainId: where.chainId,
    recipient: where.depositAddress,
    amountBaseUnits: record.refund.amountBaseUnits,
  });
}
