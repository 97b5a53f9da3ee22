import type { TransferRecord } from '../../app/chain/ports.ts';
import { isFiat } from '../../domain/currencies.ts';
import { formatDecimal } from '../../domain/decimal.ts';
import { type ShownLine, shownLines } from '../../domain/lineItems.ts';
import { formatMoney, formatUsdc } from '../../domain/money.ts';
import type { Deposit, Payment } from '../../domain/payment.ts';
import type { PaymentState, PaymentStatus } from '../../domain/paymentStatus.ts';
import { withPaymentId } from '../../domain/redirectUrl.ts';
import { eip681TransferLink } from '../web/eip681.ts';
import { explorerTxUrl } from '../web/network.ts';
import type { PaymentNetwork } from './paymentNetworks.ts';

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
  /** What the customer buys (decision 0051): the payment's title, description and lines, each optional. */
  readonly sold: Sold;
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
  /** The payment's home chain, where its deposit row lives: the first of `offers`. */
  readonly network: PaymentNetwork;
  /**
   * Every network the payment can be paid on (paymentNetworks.ts), home first, each with its own request: the
   * same deposit address and amount, that chain's USDC and chain id.
   */
  readonly offers: readonly NetworkOffer[];
  readonly deposit: Deposit;
  /** EIP-681 request for the remaining amount (the full amount before anything arrived), on the home chain. */
  readonly paymentLink: string;
}

/** What a payment sells, as the customer is shown it; lines in the price's currency. */
export interface Sold {
  readonly title: string | null;
  readonly description: string | null;
  readonly lines: readonly ShownLine[];
}

/** A network the payment is offered on, with its EIP-681 request for what is due. */
export interface NetworkOffer {
  readonly network: PaymentNetwork;
  /** The USDC sent there: the payment's own token on its home chain, that chain's USDC elsewhere. */
  readonly tokenAddress: string;
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
  /** paymentNetworks' answer: home first, never empty. */
  networks: readonly PaymentNetwork[];
  now: Date;
}): CheckoutView {
  const { payment, deposit, state, networks } = input;
  const network = networks[0];
  if (!network || network.chainId !== deposit.chainId)
    throw new Error('the first network must be the payment’s own');
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

  const named = state.completedBy ?? state.lastSeen;
  // A paid x402 call names no transfer of its own: its transaction is the one recorded when it was mined.
  const recorded = named === null && state.status === 'paid' && payment.deposit === null;
  const txid = named?.txHash ?? (recorded ? payment.txid : null);
  const txChainId = named?.chainId ?? (recorded ? payment.txidChainId : null) ?? deposit.chainId;
  // On the explorer of the chain it was sent on, like each transfer below (decision 0039).
  const txNetwork = networks.find((n) => n.chainId === txChainId);
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
      // Each on the explorer of the chain it was sent on (the watcher records source chains' transfers too).
      url: explorerTxUrl(networks.find((n) => n.chainId === t.chainId)?.explorerUrl ?? '', t.txHash),
    }));
  const due = remaining > 0n ? remaining : required;
  const offers = networks.map((n) => {
    const tokenAddress = n.chainId === deposit.chainId ? deposit.tokenAddress : n.usdcAddress;
    const paymentLink = eip681TransferLink({
      tokenAddress,
      chainId: n.chainId,
      recipient: deposit.depositAddress,
      amountBaseUnits: due,
    });
    return { network: n, tokenAddress, paymentLink };
  });
  return {
    paymentId: payment.id,
    status: state.status,
    stage,
    merchantName: input.merchantName,
    priceAmount: formatMoney(payment.quote.amount),
    priceCurrency: payment.quote.amount.currency.code,
    sold: { title: payment.title, description: payment.description, lines: shownLines(payment.lineItems) },
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
    txUrl: txid ? explorerTxUrl(txNetwork?.explorerUrl ?? '', txid) : null,
    // The success_url as the customer is sent to it (payment id appended); the older return_url otherwise.
    returnUrl: payment.successUrl ? withPaymentId(payment.successUrl, payment.id) : payment.returnUrl,
    returnsOnSuccess: payment.successUrl !== null,
    cancelUrl: payment.cancelUrl && withPaymentId(payment.cancelUrl, payment.id),
    network,
    offers,
    deposit,
    paymentLink: offers[0]?.paymentLink ?? '',
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
  /** Every network the payment can be paid on, home first, each with its own request (the page's links and QR). */
  readonly networks: readonly { readonly chain_id: number; readonly payment_link: string }[];
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
    networks: view.offers.map((o) => ({ chain_id: o.network.chainId, payment_link: o.paymentLink })),
  };
}
