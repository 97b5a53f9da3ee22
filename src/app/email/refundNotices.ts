import { formatUsdc } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import type { Refund } from '../../domain/refund.ts';
import { emailToCustomer, hasWritableAddress } from './composeEmail.ts';
import type { EmailTemplate, RefundNoticeTransaction } from './ports.ts';

/** Which notice: the refund waits for the customer's address (`claim`), or it was sent (`sent`). */
export type RefundNoticeStage = 'claim' | 'sent';

export interface RefundNoticeData {
  readonly stage: RefundNoticeStage;
  readonly merchantName: string;
  /** USDC, exact ("2.00"). */
  readonly amount: string;
  /** The claim page (`claim`): where the customer gives an address, before `claimBefore`. */
  readonly claimUrl: string;
  readonly claimBefore: Date;
  /** Where it went, and the transaction on the explorer where the network has one (`sent`). */
  readonly address: string | null;
  readonly txid: string | null;
  readonly explorerTxUrl: string | null;
}

/** What writing refund notices takes: set only where e-mail is configured (config.mail). */
export interface RefundNoticeSettings {
  readonly template: EmailTemplate<RefundNoticeData>;
  readonly messageDomain: string;
  /** The checkout's public origin, where the claim page is. */
  readonly checkoutUrl: string;
  readonly explorerUrl: (chainId: number) => string | undefined;
}

/**
 * Queues a refund notice to the refunded payment's `customer_email`, in the transaction that changes the refund
 * (created awaiting the address, or announced refunded): only that address, the one the merchant gave, and
 * none for a test-mode payment (decision 0024).
 */
export async function queueRefundNotice(
  t: RefundNoticeTransaction,
  settings: RefundNoticeSettings,
  payment: Payment,
  record: { readonly refund: Refund; readonly deposit: Payment | undefined },
  stage: RefundNoticeStage,
  now: Date,
): Promise<boolean> {
  if (payment.mode !== 'live' || !hasWritableAddress(payment)) return false;
  const merchant = await t.findMerchant(payment.merchantId);
  if (!merchant) return false;
  const { refund, deposit } = record;
  const txid = deposit?.payout.txHash ?? null;
  const explorer = deposit?.deposit ? settings.explorerUrl(deposit.deposit.chainId) : undefined;
  const data: RefundNoticeData = {
    stage,
    merchantName: merchant.name,
    amount: formatUsdc(refund.amountBaseUnits),
    claimUrl: new URL(`/refunds/${refund.id}`, settings.checkoutUrl).toString(),
    claimBefore: refund.claimExpiresAt,
    address: refund.address,
    txid,
    explorerTxUrl: explorer && txid ? new URL(`/tx/${txid}`, explorer).toString() : null,
  };
  const message = emailToCustomer(settings.template, data, payment, {
    messageDomain: settings.messageDomain,
    now,
    refundId: refund.id,
  });
  await t.insertEmail(message);
  return true;
}
