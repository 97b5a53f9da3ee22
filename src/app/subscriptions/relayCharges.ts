import type { Payment } from '../../domain/payment.ts';
import type { PayoutPolicy } from '../../domain/payout.ts';
import { graceEnd } from '../../domain/subscription.ts';
import type { ChainReader, Ledger, OutboxEvent } from '../chain/ports.ts';
import type { GaslessSpend } from '../gasless/ports.ts';
import { overShare, SUBSCRIPTION_CLIENT_PREFIX } from '../gasless/relayAuthorizations.ts';
import { paidInOneTransactionEvent } from '../payments/paidInOneTransaction.ts';
import type { PaymentStore } from '../payments/ports.ts';
import type { Relayer } from '../settlement/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { Charge, ChargerCalls, MandateStore } from './mandatePorts.ts';
import type { SubscriptionStore } from './ports.ts';

export interface RelayChargesDeps {
  readonly mandates: MandateStore;
  /** The key that pays the charges' gas: the gasless relayer's, in its own singleton (one writer of its nonces). */
  readonly relayer: Pick<
    Relayer,
    'nonce' | 'currentFees' | 'estimateCall' | 'signCall' | 'broadcast' | 'receipt'
  >;
  readonly charger: ChargerCalls;
  /** The home chain's finality rule, the watcher's for deposits: a charge is applied once its block is final. */
  readonly finality: Pick<ChainReader, 'finalizedBlockNumber'>;
  readonly payments: Pick<PaymentStore, 'findById'>;
  /** The transfers the watcher saw to each period's deposit address: a period paid by hand is not charged. */
  readonly ledger: Pick<Ledger, 'listTransfers'>;
  readonly subscriptions: Pick<SubscriptionStore, 'find'>;
  readonly clock: Clock;
  readonly payoutPolicy: PayoutPolicy;
  readonly logger: {
    info(fields: object, message: string): void;
    warn(fields: object, message: string): void;
  };
  /** Told of a period whose charge failed, after it is recorded: the push fallback (its link e-mailed). */
  readonly onFailed?: ((charge: Charge) => Promise<unknown>) | undefined;
  /** The key's hourly gas budget, shared with the gasless transfers (runGaslessRelayer's `keyBudget`). */
  readonly budget?: ChargeBudget | undefined;
}

/** PAYLINK_GASLESS_MAX_FEE_PER_HOUR as the charges see it: what the key spent, transfers and charges together. */
export interface ChargeBudget {
  /** In wei; undefined: no cap. */
  readonly maxFeeWeiPerHour: bigint | undefined;
  /** What the relayer's key paid on this chain for what finished since then, transfers and charges alike. */
  spendSince(since: Date): Promise<GaslessSpend[]>;
}

export type ChargeOutcome =
  | { readonly kind: 'idle' }
  | { readonly kind: 'awaiting-receipt'; readonly charge: Charge }
  /** Mined in a block not final yet: applied once it is; a reorg before then leaves it sent, as if never mined. */
  | { readonly kind: 'awaiting-finality'; readonly charge: Charge; readonly blockNumber: bigint }
  | { readonly kind: 'sent'; readonly charge: Charge; readonly txHash: string }
  | { readonly kind: 'mined'; readonly charge: Charge }
  | { readonly kind: 'deferred'; readonly charge: Charge; readonly reason: string }
  /** The key's hour is spent (or the charge's merchant's share of it): the charge waits, untouched. */
  | { readonly kind: 'capped' | 'share-spent'; readonly charge: Charge; readonly spentWei: bigint }
  | { readonly kind: 'failed'; readonly charge: Charge; readonly reason: string };

/** How long after a failed attempt the next one is made: a customer topping up or unblocked gets a few tries. */
export const CHARGE_RETRY_MS: readonly number[] = [3_600_000, 6 * 3_600_000, 24 * 3_600_000];
/** A charge refused because its period is not yet current on chain (the chain's clock behind ours): a minute. */
export const NOT_DUE_RETRY_MS = 60_000;
/** A charge whose period's link was paid by a transfer not final yet: looked at again in ten minutes. */
export const PAID_BY_HAND_RETRY_MS = 10 * 60_000;
const GAS_MARGIN_PERCENT = 120n;

/**
 * One pass of pull renewal's relayer on one chain, one transaction in flight at a time, as the gasless relayer's
 * (decision 0040): first the charge sent (its receipt, once its block is final by the chain's finality rule,
 * applies it once: the period's payment paid by its transaction; a reverted one fails it, to be tried again; a
 * nonce taken by another transaction, in no block, likewise), otherwise the next charge due, checked again now (the period paid meanwhile, the mandate replaced,
 * the grace over), simulated (the contract and the token say why they would refuse: the balance, the allowance,
 * a blacklist, a pause, a cancellation), signed, recorded as sent, and only then broadcast.
 */
export async function relayChargeOnce(deps: RelayChargesDeps): Promise<ChargeOutcome> {
  const { chainId } = deps.charger;
  const sent = await deps.mandates.inFlight(chainId);
  if (sent) return advanceSent(deps, sent);
  const now = deps.clock.now();
  const hour = await spentThisHour(deps, now);
  const fair = await deps.mandates.nextDue(chainId, now, hour.skipMerchants);
  const held = hour.skipMerchants.length > 0 && !fair;
  const next = held ? await deps.mandates.nextDue(chainId, now) : fair;
  if (!next) return { kind: 'idle' };
  const stale = await whyNoLonger(deps, next, now);
  // Not made: its period is paid, over or gone (no link e-mailed), or its mandate was replaced or canceled
  // (the period's link e-mailed, as push).
  if (stale) return fail(deps, next, stale, { retry: false, fallback: stale === MANDATE_GONE });
  const byHand = await paidByHand(deps, next);
  if (byHand === 'final') return fail(deps, next, PAID_IN_PART, { retry: false, fallback: false });
  if (byHand === 'not-final') return defer(deps, next, SEEN_NOT_FINAL, PAID_BY_HAND_RETRY_MS, now);
  // Over the key's hour, as a gasless transfer (spent ≥ cap): it waits, neither failed nor e-mailed, and goes
  // once the hour's spend ages out; the period's own reminder still e-mails its link before its grace ends.
  const cap = deps.budget?.maxFeeWeiPerHour;
  if (cap !== undefined && hour.spentWei >= cap) {
    deps.logger.warn(
      { spentWei: hour.spentWei.toString(), capWei: cap.toString() },
      'subscription charges paused: the hourly gas cap is reached',
    );
    return { kind: 'capped', charge: next, spentWei: hour.spentWei };
  }
  if (!fair) return { kind: 'share-spent', charge: next, spentWei: hour.spentWei };
  const mandate = (await deps.mandates.findMandate(next.subscriptionId))!;
  const data = deps.charger.chargeData(mandate, next.period, next.amountBaseUnits);
  const estimate = await deps.relayer.estimateCall(mandate.charger, data);
  if (!estimate.ok) {
    // The chain's clock may trail ours by a block: not a refusal of the customer's, no attempt counted.
    if (/NotCurrentPeriod/.test(estimate.reason) && next.attempts === 0)
      return defer(deps, next, estimate.reason, NOT_DUE_RETRY_MS, now);
    // The customer canceled on chain: the mandate is over, the period is pushed (its link e-mailed).
    if (/MandateCanceled/.test(estimate.reason))
      await deps.mandates.saveMandate({ ...mandate, status: 'canceled', updatedAt: now });
    const final =
      /AlreadyCharged|TermsEnded|InvalidSignature|InvalidTerms|AmountAboveCap|MandateCanceled/.test(
        estimate.reason,
      );
    return fail(deps, next, `the charger refuses it now: ${estimate.reason}`, { retry: !final });
  }
  const nonce = await deps.relayer.nonce();
  const signed = await deps.relayer.signCall(
    { to: mandate.charger, data },
    { nonce, gas: (estimate.gas * GAS_MARGIN_PERCENT) / 100n, fees: await deps.relayer.currentFees() },
  );
  // Recorded before it is broadcast: a crash after the broadcast finds it sent, and only waits for its receipt.
  await deps.mandates.markSent(next, { ...signed, nonce }, now);
  const charge: Charge = {
    ...next,
    status: 'sent',
    attempts: next.attempts + 1,
    txHash: signed.txHash,
    rawTx: signed.rawTx,
    relayerNonce: nonce,
  };
  const broadcast = await deps.relayer.broadcast(signed.rawTx);
  if (!broadcast.accepted)
    return fail(deps, charge, `the node refused the transaction: ${broadcast.reason}`, { retry: true });
  deps.logger.info(
    { subscriptionId: next.subscriptionId, period: next.period, txHash: signed.txHash },
    'subscription charge sent',
  );
  return { kind: 'sent', charge, txHash: signed.txHash };
}

const MANDATE_GONE = 'the mandate was canceled or replaced';
const SEEN_NOT_FINAL = "a transfer to its period's deposit address is seen, not final yet";
const PAID_IN_PART = "its period was paid in part by hand: the rest is its link's";

/**
 * Whether the customer paid the period's link themselves (its deposit address), as the watcher saw it: a
 * transfer still on the canonical chain, final or not. Read just before the charge is signed, whatever the
 * payment's status says: a transfer not final yet leaves it unpaid, and a charge then would make two payments.
 */
async function paidByHand(
  deps: RelayChargesDeps,
  charge: Charge,
): Promise<'final' | 'not-final' | undefined> {
  const seen = (await deps.ledger.listTransfers(charge.paymentId)).filter((t) => !t.orphaned);
  if (seen.length === 0) return undefined;
  return seen.every((t) => t.final) ? 'final' : 'not-final';
}

/** Not this time, and no attempt counted: it stays pending until `waitMs` from now (not the customer's refusal). */
async function defer(
  deps: RelayChargesDeps,
  charge: Charge,
  reason: string,
  waitMs: number,
  now: Date,
): Promise<ChargeOutcome> {
  const nextAttemptAt = new Date(now.getTime() + waitMs);
  await deps.mandates.markFailed(
    charge,
    { reason, nextAttemptAt, attempts: charge.attempts, deferred: true },
    now,
  );
  return { kind: 'deferred', charge, reason };
}
const HOUR_MS = 3_600_000;

/** The key's spend in the hour before `now`, and the merchants whose charges spent their share of the cap. */
async function spentThisHour(
  deps: RelayChargesDeps,
  now: Date,
): Promise<{ spentWei: bigint; skipMerchants: string[] }> {
  if (deps.budget?.maxFeeWeiPerHour === undefined) return { spentWei: 0n, skipMerchants: [] };
  const spend = await deps.budget.spendSince(new Date(now.getTime() - HOUR_MS));
  const spentWei = spend.reduce((sum, one) => sum + one.feeWei, 0n);
  const skipMerchants = overShare(spend, deps.budget.maxFeeWeiPerHour)
    .skipClients.filter((client) => client.startsWith(SUBSCRIPTION_CLIENT_PREFIX))
    .map((client) => client.slice(SUBSCRIPTION_CLIENT_PREFIX.length));
  return { spentWei, skipMerchants };
}

async function whyNoLonger(deps: RelayChargesDeps, charge: Charge, now: Date): Promise<string | undefined> {
  const payment = await deps.payments.findById(charge.paymentId);
  if (!payment) return 'its payment is gone';
  if (payment.status === 'paid') return 'the period was paid otherwise';
  const mandate = await deps.mandates.findMandate(charge.subscriptionId);
  if (mandate?.status !== 'active' || mandate.mandateId !== charge.mandateId) return MANDATE_GONE;
  const record = await deps.subscriptions.find(charge.subscriptionId);
  if (!record) return 'its subscription is gone';
  if (record.subscription.cancelAt && record.subscription.cancelAt.getTime() <= now.getTime())
    return 'the subscription is canceled';
  if (graceEnd(record.subscription.anchor, record.plan, charge.period).getTime() < now.getTime())
    return "the period's grace is over";
  return undefined;
}

async function advanceSent(deps: RelayChargesDeps, sent: Charge): Promise<ChargeOutcome> {
  // The nonce first, then the receipt: a transaction mined between the two reads is found by the receipt.
  const chainNonce = await deps.relayer.nonce();
  const receipt = await deps.relayer.receipt(sent.txHash!);
  if (receipt) return recordReceipt(deps, sent, receipt);
  if (chainNonce > sent.relayerNonce!) {
    const again = await deps.relayer.receipt(sent.txHash!);
    if (again) return recordReceipt(deps, sent, again);
    if ((await deps.charger.blockOf(sent.txHash!)) !== undefined)
      return { kind: 'awaiting-receipt', charge: sent };
    // In no block and its nonce spent elsewhere: it never happened, and the period may be charged again.
    return fail(deps, sent, `nonce ${sent.relayerNonce} was used by another transaction`, { retry: true });
  }
  // Not mined yet: the same bytes again (a node that lost it takes it back).
  await deps.relayer.broadcast(sent.rawTx!);
  return { kind: 'awaiting-receipt', charge: sent };
}

async function recordReceipt(
  deps: RelayChargesDeps,
  sent: Charge,
  receipt: {
    readonly blockNumber: bigint;
    readonly success: boolean;
    readonly gasUsed: bigint;
    readonly feeWei: bigint;
  },
): Promise<ChargeOutcome> {
  // Nothing is applied from a block a reorg can still remove (a payment paid by a charge that is gone): the
  // charge stays sent, the key's one transaction in flight, until the watcher's own rule calls its block final.
  // Reverted ones too: a reorg could mine the same bytes elsewhere with another outcome.
  if (receipt.blockNumber > (await deps.finality.finalizedBlockNumber()))
    return { kind: 'awaiting-finality', charge: sent, blockNumber: receipt.blockNumber };
  const cost = { gasUsed: receipt.gasUsed, feeWei: receipt.feeWei };
  if (!receipt.success) return fail(deps, sent, 'the charge reverted on chain', { retry: true, ...cost });
  const at = deps.clock.now();
  const mandate = await deps.mandates.findMandate(sent.subscriptionId);
  await deps.mandates.markMined(
    sent,
    { ...cost, token: mandate?.terms.token.toLowerCase() ?? '' },
    (payment) => paidEvent(deps, payment, sent, at),
    at,
  );
  deps.logger.info(
    { subscriptionId: sent.subscriptionId, period: sent.period, txHash: sent.txHash },
    'subscription charge mined',
  );
  return { kind: 'mined', charge: { ...sent, status: 'mined' } };
}

/** The period's `payment.paid`, with the charge that paid it. */
function paidEvent(deps: RelayChargesDeps, payment: Payment, charge: Charge, at: Date): OutboxEvent {
  return paidInOneTransactionEvent(
    payment,
    { amountBaseUnits: charge.amountBaseUnits, at },
    deps.payoutPolicy,
    {
      subscription_charge: { period: charge.period, tx_hash: charge.txHash },
    },
  );
}

/** The next attempt after `attempts` failed ones, or null once past the period's grace (the caller checks it). */
export function nextAttemptAt(attempts: number, at: Date): Date {
  const wait = CHARGE_RETRY_MS[Math.min(attempts, CHARGE_RETRY_MS.length) - 1] ?? CHARGE_RETRY_MS[0]!;
  return new Date(at.getTime() + wait);
}

async function fail(
  deps: RelayChargesDeps,
  charge: Charge,
  reason: string,
  options: { retry: boolean; fallback?: boolean; gasUsed?: bigint; feeWei?: bigint },
): Promise<ChargeOutcome> {
  const at = deps.clock.now();
  // A charge sent counted its attempt when it was recorded; one refused before sending counts it now.
  const attempts = charge.status === 'sent' ? charge.attempts : charge.attempts + 1;
  const { retry, fallback = true, ...cost } = options;
  await deps.mandates.markFailed(
    charge,
    { reason, nextAttemptAt: retry ? nextAttemptAt(attempts, at) : null, attempts, ...cost },
    at,
  );
  deps.logger.warn(
    { subscriptionId: charge.subscriptionId, period: charge.period, reason },
    'subscription charge failed',
  );
  const failed = { ...charge, status: 'failed' as const, failureReason: reason };
  if (fallback)
    await deps.onFailed?.(failed).catch((error: unknown) => {
      deps.logger.warn(
        { err: error, subscriptionId: charge.subscriptionId },
        'could not e-mail the fallback link',
      );
    });
  return { kind: 'failed', charge: failed, reason };
}
