import type { TransferRecord } from '../../app/ports.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Deposit, Payment } from '../../domain/payment.ts';
import type { PaymentState, PaymentStatus } from '../../domain/paymentStatus.ts';
import { eip681TransferLink } from './eip681.ts';

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

export interface CheckoutView {
  readonly paymentId: string;
  readonly status: PaymentStatus;
  readonly stage: CheckoutStage;
  readonly merchantName: string;
  /** The merchant's price as quoted ("25.00" EUR). */
  readonly priceAmount: string;
  readonly priceCurrency: string;
  readonly requiredBaseUnits: bigint;
  /** Final transfers. */
  readonly receivedBaseUnits: bigint;
  /** All transfers seen, final or not. */
  readonly detectedBaseUnits: bigint;
  /** What is left to send: required minus everything seen, never below zero. */
  readonly remainingBaseUnits: bigint;
  readonly expiresAt: Date;
  /** From the server's clock, so a customer whose clock is wrong still sees the right countdown. */
  readonly secondsLeft: number;
  readonly paidAt: Date | null;
  readonly late: boolean;
  readonly txid: string | null;
  readonly txUrl: string | null;
  readonly returnUrl: string | null;
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
  return {
    paymentId: payment.id,
    status: state.status,
    stage,
    merchantName: input.merchantName,
    priceAmount: formatMoney(payment.quote.amount),
    priceCurrency: payment.quote.amount.currency.code,
    requiredBaseUnits: required,
    receivedBaseUnits: state.amountReceivedBaseUnits,
    detectedBaseUnits: seen,
    remainingBaseUnits: remaining,
    expiresAt: payment.expiresAt,
    secondsLeft,
    paidAt: state.paidAt,
    late: state.late,
    txid,
    txUrl: txid && network.explorerUrl ? `${network.explorerUrl.replace(/\/+$/, '')}/tx/${txid}` : null,
    returnUrl: payment.returnUrl,
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
    expires_at: view.expiresAt.toISOString(),
    seconds_left: view.secondsLeft,
    paid_at: view.paidAt?.toISOString() ?? null,
    late: view.late,
    txid: view.txid,
    tx_url: view.txUrl,
    payment_link: view.paymentLink,
  };
}
