import type { Logger } from 'pino';
import { MIN_VALIDITY_LEFT_S } from '../../domain/transferAuthorization.ts';
import type { Ledger } from '../chain/ports.ts';
import type { PaymentStore } from '../payments/ports.ts';
import type { Relayer } from '../settlement/ports.ts';
import type { Clock } from '../shared/ports.ts';
import { signedTransferDue } from './acceptAuthorization.ts';
import type { AuthorizationChain, GaslessAuthorization, GaslessSpend, GaslessStore } from './ports.ts';

export interface RelayAuthorizationsDeps {
  readonly gasless: GaslessStore;
  /** The gasless relayer's own key: the settler's nonces are never shared (decision 0012). */
  readonly relayer: Pick<
    Relayer,
    'address' | 'nonce' | 'currentFees' | 'estimateCall' | 'signCall' | 'broadcast' | 'receipt'
  >;
  readonly chain: Pick<
    AuthorizationChain,
    'chainId' | 'isUsed' | 'usedBy' | 'refusalOf' | 'callData' | 'blockOf'
  >;
  readonly payments: Pick<PaymentStore, 'findById'>;
  readonly ledger: Pick<Ledger, 'listTransfers'>;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /**
   * Told of each authorization once mined, after it is recorded: an x402 call's payment is then marked paid
   * (decision 0059) even when no /settle is left waiting for it. A failure is logged, and the caller's next
   * settle of the same payload records it again.
   */
  readonly onMined?: ((authorization: GaslessAuthorization) => Promise<unknown>) | undefined;
}

export interface RelayOptions {
  /** The most the relayer may pay for gasless transfers in any hour, in wei; undefined: no cap. */
  readonly maxFeeWeiPerHour?: bigint | undefined;
}

export type RelayOutcome =
  | { readonly kind: 'idle' }
  | { readonly kind: 'awaiting-receipt'; readonly id: string }
  | { readonly kind: 'mined'; readonly id: string; readonly feeWei: bigint }
  | { readonly kind: 'failed'; readonly id: string; readonly reason: string }
  | { readonly kind: 'sent'; readonly id: string; readonly txHash: string }
  | { readonly kind: 'capped'; readonly id: string; readonly spentWei: bigint }
  /** Every authorization waiting is of a payer or payment that has spent its share of the hour. */
  | { readonly kind: 'share-spent'; readonly id: string; readonly spentWei: bigint };

const HOUR_MS = 60 * 60_000;
/**
 * No payer and no payment may spend more than this fraction of the hourly cap: whoever floods the relayer with
 * authorizations (each of them paying a whole payment) leaves nine tenths of the hour to everyone else.
 */
export const HOURLY_SHARE_DIVISOR = 10n;
/** Gas estimates are for the chain as it is now; a little room keeps a busy block from running it out. */
const GAS_MARGIN_PERCENT = 120n;

/**
 * One pass of the gasless relayer on one chain, a singleton per chain (it owns its key's nonces). One
 * transaction in flight at a time: first the one sent (its receipt records what it cost; a nonce taken by
 * another transaction, one that is in no block, fails it), otherwise the next authorization waiting — the oldest of the payers served least
 * this hour — checked again now — the payment may have been paid meanwhile, the customer may have used the nonce
 * or spent the money, the signature may be about to lapse — then signed, persisted and broadcast. Within the
 * hourly cap only, and within each payer's and payment's share of it: above them, authorizations wait (the
 * customer can still pay with gas).
 */
export async function relayOnce(
  deps: RelayAuthorizationsDeps,
  options: RelayOptions = {},
): Promise<RelayOutcome> {
  const { chainId } = deps.chain;
  const sent = await deps.gasless.inFlight(chainId);
  if (sent) return advanceSent(deps, sent);

  const now = deps.clock.now();
  const servedSince = new Date(now.getTime() - HOUR_MS);
  const spend = await deps.gasless.spendSince(chainId, servedSince);
  const spentWei = spend.reduce((sum, one) => sum + one.feeWei, 0n);
  const fair = await deps.gasless.nextPending(chainId, {
    servedSince,
    ...overShare(spend, options.maxFeeWeiPerHour),
  });
  const next = fair ?? (await deps.gasless.nextPending(chainId, { servedSince }));
  if (!next) return { kind: 'idle' };
  const stale = await whyNoLonger(deps, next, now);
  if (stale === USED_ELSEWHERE) return usedElsewhere(deps, next, stale);
  if (stale) return fail(deps, next, stale);

  if (options.maxFeeWeiPerHour !== undefined) {
    if (spentWei >= options.maxFeeWeiPerHour) {
      deps.logger.warn(
        { spentWei: spentWei.toString(), capWei: options.maxFeeWeiPerHour.toString() },
        'gasless relaying paused: the hourly gas cap is reached',
      );
      return { kind: 'capped', id: next.id, spentWei };
    }
  }
  if (!fair) return { kind: 'share-spent', id: next.id, spentWei };

  const call = { to: next.tokenAddress, data: deps.chain.callData(next, next.signature) };
  const estimate = await deps.relayer.estimateCall(call.to, call.data);
  if (!estimate.ok) return fail(deps, next, `the token refuses it now: ${estimate.reason}`);
  const nonce = await deps.relayer.nonce();
  const signed = await deps.relayer.signCall(call, {
    nonce,
    gas: (estimate.gas * GAS_MARGIN_PERCENT) / 100n,
    fees: await deps.relayer.currentFees(),
  });
  await deps.gasless.markSent(next.id, { ...signed, nonce });
  const broadcast = await deps.relayer.broadcast(signed.rawTx);
  if (!broadcast.accepted) return fail(deps, next, `the node refused the transaction: ${broadcast.reason}`);
  deps.logger.info(
    { authorizationId: next.id, paymentId: next.paymentId, txHash: signed.txHash },
    'gasless transfer sent',
  );
  return { kind: 'sent', id: next.id, txHash: signed.txHash };
}

/** The submitter an x402 merchant's calls carry (`clientAddress`, decision 0059): its share is the merchant's. */
export const X402_CLIENT_PREFIX = 'x402:';
/** The client of a subscription's charges in the key's spend (decision 0061): their merchant's, as x402's. */
export const SUBSCRIPTION_CLIENT_PREFIX = 'subscriptions:';
const MERCHANT_CLIENTS = [X402_CLIENT_PREFIX, SUBSCRIPTION_CLIENT_PREFIX];

/**
 * The payers and payments that have spent their share of the hourly cap (none without a cap), and the x402
 * merchants that have spent theirs: every call of a merchant is a payment of its own and may come from many
 * payers, so the merchant itself is held to a share (a checkout's customers are not grouped by their merchant);
 * likewise a merchant's subscription charges (`subscriptions:<merchant id>`, decision 0061).
 * About ten of each at most, since each of them spent a tenth of what the hour allows, so the store's lists stay
 * short.
 */
export function overShare(
  spend: readonly GaslessSpend[],
  capWei: bigint | undefined,
): { skipPayers: string[]; skipPayments: string[]; skipClients: string[] } {
  if (capWei === undefined) return { skipPayers: [], skipPayments: [], skipClients: [] };
  const share = capWei / HOURLY_SHARE_DIVISOR;
  const byPayer = new Map<string, bigint>();
  const byPayment = new Map<string, bigint>();
  const byMerchant = new Map<string, bigint>();
  for (const one of spend) {
    byPayer.set(one.from, (byPayer.get(one.from) ?? 0n) + one.feeWei);
    byPayment.set(one.paymentId, (byPayment.get(one.paymentId) ?? 0n) + one.feeWei);
    if (MERCHANT_CLIENTS.some((prefix) => one.client.startsWith(prefix)))
      byMerchant.set(one.client, (byMerchant.get(one.client) ?? 0n) + one.feeWei);
  }
  // Each is over its share only once it has spent it, so everyone gets a first transfer while the cap lasts.
  const over = (totals: Map<string, bigint>) =>
    [...totals].filter(([, spent]) => spent >= share).map(([key]) => key);
  return { skipPayers: over(byPayer), skipPayments: over(byPayment), skipClients: over(byMerchant) };
}

const USED_ELSEWHERE = 'the customer used or canceled it elsewhere';

/** Why a waiting authorization should not be sent any more, if it should not. */
async function whyNoLonger(
  deps: RelayAuthorizationsDeps,
  authorization: GaslessAuthorization,
  now: Date,
): Promise<string | undefined> {
  const nowS = BigInt(Math.floor(now.getTime() / 1000));
  if (authorization.validBefore < nowS + MIN_VALIDITY_LEFT_S) return 'it lapsed before it could be sent';
  const payment = await deps.payments.findById(authorization.paymentId);
  if (!payment) return 'its payment is gone';
  if (authorization.valueBaseUnits > (await signedTransferDue(deps, payment, now)))
    return 'the payment no longer needs it (paid meanwhile)';
  if (await deps.chain.isUsed(authorization.tokenAddress, authorization.from, authorization.nonce))
    return USED_ELSEWHERE;
  const refusal = await deps.chain.refusalOf(
    authorization.tokenAddress,
    authorization,
    authorization.signature,
  );
  return refusal === undefined ? undefined : `the token refuses it now: ${refusal}`;
}

async function advanceSent(deps: RelayAuthorizationsDeps, sent: GaslessAuthorization): Promise<RelayOutcome> {
  // The nonce first, then the receipt: a transaction mined between the two reads is then found by the receipt,
  // never taken for another transaction that used the nonce.
  const chainNonce = await deps.relayer.nonce();
  const receipt = await deps.relayer.receipt(sent.txHash!);
  if (receipt) return recordReceipt(deps, sent, receipt);
  if (chainNonce > sent.relayerNonce!) return nonceMovedOn(deps, sent);
  // Not mined yet: send the same bytes again (a node that lost it takes it back; one that has it says so).
  await deps.relayer.broadcast(sent.rawTx!);
  return { kind: 'awaiting-receipt', id: sent.id };
}

/**
 * The relayer's nonce is past this transaction's and no receipt was read. Behind a load-balanced RPC the receipt
 * may come from a node a block behind the one that answered the nonce: failing it then would record no fee, and
 * what it cost would escape the hourly cap and the shares (decision 0040). So the receipt is read again, and the
 * transaction fails only when the chain shows it in no block; its reason says whose transaction it was if the
 * customer's authorization was used all the same.
 */
async function nonceMovedOn(
  deps: RelayAuthorizationsDeps,
  sent: GaslessAuthorization,
): Promise<RelayOutcome> {
  const txHash = sent.txHash!;
  const again = await deps.relayer.receipt(txHash);
  if (again) return recordReceipt(deps, sent, again);
  // In a block, its receipt follows: wait for it (the nonce is spent, so nothing is sent again).
  if ((await deps.chain.blockOf(txHash)) !== undefined) return { kind: 'awaiting-receipt', id: sent.id };
  const taken = `nonce ${sent.relayerNonce} was used by a transaction that is not this one`;
  const used = await deps.chain.isUsed(sent.tokenAddress, sent.from, sent.nonce);
  if (used) return usedElsewhere(deps, sent, `${taken}, and the authorization by another transaction`);
  return fail(deps, sent, taken);
}

async function recordReceipt(
  deps: RelayAuthorizationsDeps,
  sent: GaslessAuthorization,
  receipt: { readonly success: boolean; readonly gasUsed: bigint; readonly feeWei: bigint },
): Promise<RelayOutcome> {
  const cost = { gasUsed: receipt.gasUsed, feeWei: receipt.feeWei };
  if (!receipt.success) {
    // Reverted: most often because another transaction used the authorization first (a front-runner).
    const reason = 'the transfer reverted on chain';
    if (await deps.chain.isUsed(sent.tokenAddress, sent.from, sent.nonce))
      return usedElsewhere(deps, sent, reason, cost);
    return fail(deps, sent, reason, cost);
  }
  return recordMined(deps, sent, cost, sent.txHash!);
}

/**
 * The authorization was used by a transaction that is not the relayer's (another relayer, or a front-runner who
 * copied it from the mempool or from the facilitator's caller): when that transaction moved exactly the signed
 * value from the payer to the signed recipient, the money arrived as signed, so it is recorded as mined by that
 * transaction (with what the relayer's own attempt cost, if it made one) and reported like any mined transfer;
 * otherwise (canceled, or not found) it failed.
 */
async function usedElsewhere(
  deps: RelayAuthorizationsDeps,
  authorization: GaslessAuthorization,
  reason: string,
  cost: { gasUsed?: bigint; feeWei?: bigint } = {},
): Promise<RelayOutcome> {
  const txHash = await deps.chain.usedBy(authorization.tokenAddress, authorization);
  if (txHash === undefined) return fail(deps, authorization, reason, cost);
  deps.logger.info(
    { authorizationId: authorization.id, paymentId: authorization.paymentId, txHash },
    'gasless transfer submitted by another transaction: recorded as mined by it',
  );
  return recordMined(deps, authorization, cost, txHash);
}

async function recordMined(
  deps: RelayAuthorizationsDeps,
  sent: GaslessAuthorization,
  cost: { gasUsed?: bigint; feeWei?: bigint },
  txHash: string,
): Promise<RelayOutcome> {
  const minedAt = deps.clock.now();
  const byAnother = txHash !== sent.txHash;
  await deps.gasless.finish(sent.id, { status: 'mined', ...cost, ...(byAnother ? { txHash } : {}) }, minedAt);
  const mined: GaslessAuthorization = {
    ...sent,
    status: 'mined',
    txHash,
    gasUsed: cost.gasUsed ?? null,
    feeWei: cost.feeWei ?? null,
    finishedAt: minedAt,
  };
  await deps.onMined?.(mined).catch((error: unknown) => {
    deps.logger.warn(
      { err: error, authorizationId: sent.id },
      'could not record what the mined transfer paid',
    );
  });
  deps.logger.info(
    {
      authorizationId: sent.id,
      paymentId: sent.paymentId,
      txHash,
      feeWei: cost.feeWei?.toString(),
    },
    'gasless transfer mined',
  );
  return { kind: 'mined', id: sent.id, feeWei: cost.feeWei ?? 0n };
}

async function fail(
  deps: RelayAuthorizationsDeps,
  authorization: GaslessAuthorization,
  reason: string,
  cost: { gasUsed?: bigint; feeWei?: bigint } = {},
): Promise<RelayOutcome> {
  await deps.gasless.finish(authorization.id, { status: 'failed', reason, ...cost }, deps.clock.now());
  deps.logger.warn(
    { authorizationId: authorization.id, paymentId: authorization.paymentId, reason },
    'gasless transfer not relayed',
  );
  return { kind: 'failed', id: authorization.id, reason };
}
