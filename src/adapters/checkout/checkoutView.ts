import type { TransferRecord } from '../../app/chain/ports.ts';
import { isFiat } from '../../domain/currencies.ts';
import { formatDecimal } from '../../domain/decimal.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Deposit, Payment } from '../../domain/payment.ts';
import type { PaymentState, PaymentStatus } from '../../domain/paymentStatus.ts';
import { withPaymentId } from '../../domain/redirectUrl.ts';
import { eip681TransferLink } from '../web/eip681.ts';

/** The chain checkout takes payments on, as the customer's wallet needs to know it. */
export interface CheckoutNetwork {
  /** Shown to the customer: "Polygon", "Sandbox (local anvil)". */
  readonly name: string;
  readonly chainId: number;
  /** Block explorer base URL (`https://polygonscan.com`); empty when the chain has none (the sandbox). */
  readonly explorerUrl: string;
  /**
   * A PUBLIC RPC URL a wallet may add for this chain (wallet_addEthereumChain). It is sent to browsers, so it
   * must never be a provider URL carrying an API key. Without it, a wallet lacking the chain is told to add it.
   */
  readonly publicRpcUrl?: string | undefined;
  /** The chain's gas token, for wallet_addEthereumChain (default POL). */
  readonly nativeCurrencySymbol?: string | undefined;
}

/**
 * What the customer sees next:
 * - `pay`: nothing or too little arrived yet — pay instructions (with the remaining amount after a part);
 * - `confirming`: enough arrived and awaits finality;
 * - `paid`, `expired`, `failed`: the end screens.
 */
export type CheckoutStage = 'pay' | 'confirming' | 'paid' | 'expired' | 'failed';

/** One transfer that counts towards the payment (not orphaned, not zero), oldest first. */
export interface CheckoutTransfer {
  readonly txid: string;
  readonly amountBaseUnits: bigint;
  readonly final: boolean;
  /** On the network's block explorer; null without one (the sandbox). */
  readonly url: string | null;
}

export interface CheckoutView {
  readonly paymentId: string;
  readonly status: PaymentStatus;
  readonly stage: CheckoutStage;
  readonly merchantName: string;
  /** The merchant's price as quoted ("25.00" EUR). */
  readonly priceAmount: string;
  readonly priceCurrency: string;
  /**
   * The locked exchange rate, USDC per one unit of the price's currency ("1.08" for EUR: 1 EUR = 1.08 USDC),
   * trimmed to its significant decimals; null when the price is in USDC itself.
   */
  readonly rate: string | null;
  readonly requiredBaseUnits: bigint;
  /** Final transfers. */
  readonly receivedBaseUnits: bigint;
  /** All transfers seen, final or not. */
  readonly detectedBaseUnits: bigint;
  /** What is left to send: required minus everything seen, never below zero. */
  readonly remainingBaseUnits: bigint;
  /** Final transfers beyond the price, never below zero: stated on the paid screen, refundable by the merchant. */
  readonly overpaidBaseUnits: bigint;
  readonly transfers: readonly CheckoutTransfer[];
  readonly expiresAt: Date;
  /** From the server's clock, so a customer whose clock is wrong still sees the right countdown. */
  readonly secondsLeft: number;
  readonly paidAt: Date | null;
  readonly late: boolean;
  readonly txid: string | null;
  readonly txUrl: string | null;
  /** Where the paid page sends the customer back: the success_url, `payment_id` appended, else the return_url. */
  readonly returnUrl: string | null;
  /** Whether `returnUrl` is the success_url, where the paid page also takes the customer by itself. */
  readonly returnsOnSuccess: boolean;
  /** Where a customer whose payment did not complete goes back: the cancel_url, `payment_id` appended. */
  readonly cancelUrl: string | null;
  readonly network: CheckoutNetwork;
  readonly deposit: Deposit;
  /** EIP-681 request for the remaining amount (the full amount before anything arrived). */
  readonly paymentLink: string;
}

/**
 * The checkout's picture of a payment, from its derived state. Pure: the same inputs give the same page and
 * the same JSON, so the first render and every live update agree.
 */
export function checkoutView(input: {
  payment: Payment;
  deposit: Deposit;
  state: PaymentState<TransferRecord>;
  /** The payment's recorded transfers (listTransfers), in any order; orphaned and zero ones are left out. */
  transfers: readonly TransferRecord[];
  merchantName: string;
  network: CheckoutNetwork;
  now: Date;
}): CheckoutView {
  const { payment, deposit, state, network } = input;
  const required = payment.quote.usdcBaseUnits;
  const seen = state.amountSeenBaseUnits;
  const remaining = seen >= required ? 0n : required - seen;
  // The same threshold derivePaymentState pays at: with a tolerance, a little less than the price completes it,
  // and the customer should then be told to wait, not to send the last cents.
  const tolerance = (required * BigInt(payment.underpaymentToleranceBps)) / 10_000n;
  const enoughSeen = seen >= required - tolerance;

  const secondsLeft = Math.max(0, Math.floor((payment.expiresAt.getTime() - input.now.getTime()) / 1000));
  const pastExpiry = input.now.getTime() > payment.expiresAt.getTime();

  let stage: CheckoutStage;
  if (state.status === 'paid' || state.status === 'expired' || state.status === 'failed')
    stage = state.status;
  // Past expiry a payment is still `processing` while a transfer awaits finality: wait for it, never ask for
  // more money on an expired link.
  else if (state.status === 'processing' && (enoughSeen || pastExpiry)) stage = 'confirming';
  else stage = 'pay';

  const txid = (state.completedBy ?? state.lastSeen)?.txHash ?? null;
  const received = state.amountReceivedBaseUnits;
  const transfers = input.transfers
    .filter((t) => !t.orphaned && t.amountBaseUnits > 0n)
    .sort((a, b) =>
      a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
    )
    .map((t) => ({
      txid: t.txHash,
      amountBaseUnits: t.amountBaseUnits,
      final: t.final,
      url: explorerTxUrl(network.explorerUrl, t.txHash),
    }));
  return {
    paymentId: payment.id,
    status: state.status,
    stage,
    merchantName: input.merchantName,
    priceAmount: formatMoney(payment.quote.amount),
    priceCurrency: payment.quote.amount.currency.code,
    rate: isFiat(payment.quote.amount.currency) ? formatDecimal(payment.quote.rate) : null,
    requiredBaseUnits: required,
    receivedBaseUnits: received,
    detectedBaseUnits: seen,
    remainingBaseUnits: remaining,
    overpaidBaseUnits: received > required ? received - required : 0n,
    transfers,
    expiresAt: payment.expiresAt,
    secondsLeft,
    paidAt: state.paidAt,
    late: state.late,
    txid,
    txUrl: txid ? explorerTxUrl(network.explorerUrl, txid) : null,
    // The success_url as the customer is sent to it (payment id appended); the older return_url otherwise.
    returnUrl: payment.successUrl ? withPaymentId(payment.successUrl, payment.id) : payment.returnUrl,
    returnsOnSuccess: payment.successUrl !== null,
    cancelUrl: payment.cancelUrl && withPaymentId(payment.cancelUrl, payment.id),
    network,
    deposit,
    paymentLink: eip681TransferLink({
      tokenAddress: deposit.tokenAddress,
      chainId: deposit.chainId,
      recipient: deposit.depositAddress,
      amountBaseUnits: remaining > 0n ? remaining : required,
    }),
  };
}

/** `https://polygonscan.com/tx/0x…` (without a doubled slash); null for a network without an explorer. */
export function explorerTxUrl(explorerUrl: string, txid: string): string | null {
  return explorerUrl ? `${explorerUrl.replace(/\/+$/, '')}/tx/${txid}` : null;
}

/**
 * The body of `GET /pay/:id/status.json`: only what the page itself shows. Never the customer's e-mail, the
 * webhook URL, the order id, the payout or the commission — anyone holding the link can read this.
 */
export interface CheckoutStatusJson {
  readonly payment_id: string;
  readonly status: PaymentStatus;
  readonly stage: CheckoutStage;
  readonly usdc_amount: string;
  readonly amount_received: string;
  readonly amount_detected: string;
  readonly amount_remaining: string;
  /** Integer digits, for the wallet button (BigInt in the browser). */
  readonly amount_remaining_base_units: string;
  /** Final USDC beyond the price ("10.00"), "0.00" when none. */
  readonly amount_overpaid: string;
  /** Every transfer that counts, oldest first: each on its explorer (tx_url null without one). */
  readonly transfers: readonly {
    readonly txid: string;
    readonly amount: string;
    readonly final: boolean;
    readonly tx_url: string | null;
  }[];
  readonly expires_at: string;
  readonly seconds_left: number;
  readonly paid_at: string | null;
  readonly late: boolean;
  readonly txid: string | null;
  readonly tx_url: string | null;
  readonly payment_link: string;
}

export function checkoutStatusJson(view: CheckoutView): CheckoutStatusJson {
  return {
    payment_id: view.paymentId,
    status: view.status,
    stage: view.stage,
    usdc_amount: formatUsdc(view.requiredBaseUnits),
    amount_received: formatUsdc(view.receivedBaseUnits),
    amount_detected: formatUsdc(view.detectedBaseUnits),
    amount_remaining: formatUsdc(view.remainingBaseUnits),
    amount_remaining_base_units: view.remainingBaseUnits.toString(),
    amount_overpaid: formatUsdc(view.overpaidBaseUnits),
    transfers: view.transfers.map((t) => ({
      txid: t.txid,
      amount: formatUsdc(t.amountBaseUnits),
      final: t.final,
      tx_url: t.url,
    })),
    expires_at: view.expiresAt.toISOString(),
    seconds_left: view.secondsLeft,
    paid_at: view.paidAt?.toISOString() ?? null,
    late: view.late,
    txid: view.txid,
    tx_url: view.txUrl,
    payment_link: view.paymentLink,
  };
}
