import { randomToken } from '../../domain/credentials.ts';
import { USDC } from '../../domain/currencies.ts';
import { newPayment, type Payment } from '../../domain/payment.ts';
import type { PayoutPolicy } from '../../domain/payout.ts';
import { ONE, quote } from '../../domain/quote.ts';
import { VALID_BEFORE_AFTER_EXPIRY_S } from '../../domain/transferAuthorization.ts';
import { caip2Of } from '../../domain/x402.ts';
import type { OutboxEvent } from '../chain/ports.ts';
import type { GaslessAuthorization } from '../gasless/ports.ts';
import { X402_CLIENT_PREFIX } from '../gasless/relayAuthorizations.ts';
import { NOT_YET_SENT } from '../gasless/relayedTransaction.ts';
import { paidInOneTransactionEvent } from '../payments/paidInOneTransaction.ts';
import { timeOrderedId } from '../payments/timeOrderedId.ts';
import type { X402Call } from './ports.ts';
import {
  verifyX402,
  type X402Caller,
  type X402Chain,
  type X402Deps,
  type X402Payment,
  x402ChainOf,
} from './verifyPayment.ts';

export interface X402SettleDeps extends X402Deps {
  readonly payoutPolicy: PayoutPolicy;
  /** How long /settle waits for the relayer to mine the transfer before answering that it did not. */
  readonly settleTimeoutMs: number;
  /** How often it looks meanwhile. */
  readonly pollIntervalMs: number;
  /** Waits; tests may pass one that also drives the relayer. */
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** x402 `SettleResponse`. */
export interface X402Settlement {
  readonly success: boolean;
  readonly errorReason?: string;
  readonly errorMessage?: string;
  readonly payer: string;
  /** The transaction hash; empty when nothing was settled. */
  readonly transaction: string;
  readonly network: string;
  /** Base units settled, when settled. */
  readonly amount?: string;
}

/**
 * Settles a call once: checks it as /verify does, records the call's payment and its authorization in one
 * transaction (the gasless relayer then submits it, under its hourly cap and shares), and waits for the outcome.
 * The token's (authorizer, nonce) is unique among everything submitted: a replayed or raced payload finds the
 * call the first one made and answers its outcome — settled once, the same transaction each time. Another
 * merchant replaying it is told the nonce is used.
 */
export async function settleX402(
  deps: X402SettleDeps,
  caller: X402Caller,
  request: X402Payment,
): Promise<X402Settlement> {
  const { authorization } = request;
  const chain = x402ChainOf(deps, caller.mode, request.requirements.network);
  const network = request.requirements.network;
  const failure = (errorReason: string, errorMessage: string): X402Settlement => ({
    success: false,
    errorReason,
    errorMessage,
    payer: authorization.from,
    transaction: '',
    network,
  });
  if (chain) {
    const token = chain.tokenAddress.toLowerCase();
    const earlier = await deps.x402.findCall(chain.chainId, token, authorization.from, authorization.nonce);
    if (earlier) return outcomeOf(deps, caller, earlier, failure);
  }
  const { verdict, chain: verified, account } = await verifyX402(deps, caller, request);
  if (!verdict.isValid) return failure(verdict.invalidReason, verdict.invalidMessage);
  const call = newCall(deps, caller, request, verified!, account!);
  if ((await deps.x402.insertCall(call)) === 'nonce-used') {
    // Another request with the same payload got there first: its call is the one.
    const first = await deps.x402.findCall(
      call.authorization.chainId,
      call.authorization.tokenAddress,
      authorization.from,
      authorization.nonce,
    );
    if (!first) throw new Error('an x402 authorization refused as submitted is not found');
    return outcomeOf(deps, caller, first, failure);
  }
  return outcomeOf(deps, caller, call, failure);
}

/** The call's payment (pending until its transfer is mined) and its authorization, for the relayer. */
function newCall(
  deps: X402SettleDeps,
  caller: X402Caller,
  request: X402Payment,
  chain: X402Chain,
  account: Payment,
): X402Call {
  const now = deps.clock.now();
  const { authorization } = request;
  const id = timeOrderedId();
  const payment = newPayment({
    id,
    kind: 'payment',
    merchantId: caller.merchant.id,
    mode: caller.mode,
    quote: quote(
      { currency: USDC, minorUnits: authorization.valueBaseUnits },
      ONE,
      account.quote.commissionBps,
    ),
    rateSource: 'x402',
    rateObservedAt: now,
    underpaymentToleranceBps: 0,
    payoutAddress: account.payoutAddress,
    // Open while the relayer may still submit it; the expirer closes it if the relay never happens.
    expiresAt: new Date(Number(authorization.validBefore + VALID_BEFORE_AFTER_EXPIRY_S) * 1000),
    createdAt: now,
    // The money goes to the merchant's x402 address, which the settler flushes: this payment has none of its own.
    deposit: null,
    title: request.resource?.description || 'x402 payment',
    description: request.resource?.url ?? null,
  });
  const signed: GaslessAuthorization = {
    ...authorization,
    id: `gas_${randomToken(22)}`,
    paymentId: id,
    chainId: chain.chainId,
    tokenAddress: chain.tokenAddress.toLowerCase(),
    signature: request.signature.toLowerCase(),
    // The relayer's hourly share is the merchant's (decision 0059).
    clientAddress: `${X402_CLIENT_PREFIX}${caller.merchant.id}`,
    status: 'pending',
    ...NOT_YET_SENT,
    createdAt: now,
    finishedAt: null,
  };
  return {
    payment,
    authorization: signed,
    network: caip2Of(chain.chainId),
    resourceUrl: request.resource?.url ?? null,
  };
}

/** Waits for the relayer's outcome of the call and answers it; the merchant's payment is paid once mined. */
async function outcomeOf(
  deps: X402SettleDeps,
  caller: X402Caller,
  call: X402Call,
  failure: (reason: string, message: string) => X402Settlement,
): Promise<X402Settlement> {
  if (call.payment.merchantId !== caller.merchant.id || call.payment.mode !== caller.mode)
    return failure('invalid_exact_evm_nonce_already_used', 'This authorization was already submitted');
  const deadline = deps.clock.now().getTime() + deps.settleTimeoutMs;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let current = call;
  for (;;) {
    const { authorization } = current;
    if (authorization.status === 'mined') {
      await recordCallPaid(deps, current);
      return {
        success: true,
        payer: authorization.from,
        transaction: authorization.txHash!,
        network: current.network,
        amount: authorization.valueBaseUnits.toString(),
      };
    }
    if (authorization.status === 'failed')
      return failure(
        'invalid_exact_evm_transaction_failed',
        `The transfer was not settled: ${authorization.failureReason ?? 'the relayer gave up'}`,
      );
    if (deps.clock.now().getTime() >= deadline)
      return failure(
        'settlement_pending',
        'The transfer is queued but was not mined in time; it may still be settled, and is then recorded',
      );
    await sleep(deps.pollIntervalMs);
    const again = await deps.x402.findCall(
      authorization.chainId,
      authorization.tokenAddress,
      authorization.from,
      authorization.nonce,
    );
    if (!again) throw new Error(`x402 call ${call.payment.id} vanished`);
    current = again;
  }
}

/**
 * Marks the call's payment paid by its mined transfer, with `payment.paid` (once: a replay, or the relayer's own
 * report of the same transfer, writes nothing more).
 */
export async function recordCallPaid(
  deps: Pick<X402SettleDeps, 'x402' | 'clock' | 'payoutPolicy'>,
  call: X402Call,
): Promise<boolean> {
  const { authorization } = call;
  if (authorization.status !== 'mined' || authorization.txHash === null) return false;
  const at = authorization.finishedAt ?? deps.clock.now();
  const event = (payment: Payment): OutboxEvent =>
    paidInOneTransactionEvent(
      payment,
      { amountBaseUnits: authorization.valueBaseUnits, at },
      deps.payoutPolicy,
      {
        // What only a call has: the merchant tells its calls apart by the route paid for and who paid.
        x402: {
          resource_url: call.resourceUrl,
          payer: authorization.from.toLowerCase(),
          network: call.network,
        },
      },
    );
  return deps.x402.recordPaid(
    call.payment.id,
    { txHash: authorization.txHash, chainId: authorization.chainId, token: authorization.tokenAddress, at },
    event,
  );
}

/**
 * The gasless relayer's report of a mined authorization (its `onMined`): when it is an x402 call's, the call's
 * payment is paid now, whether or not a /settle is still waiting for it (one that gave up, a process that ended).
 */
export async function recordMinedCall(
  deps: Pick<X402SettleDeps, 'x402' | 'clock' | 'payoutPolicy'>,
  mined: GaslessAuthorization,
): Promise<boolean> {
  const call = await deps.x402.findCall(mined.chainId, mined.tokenAddress, mined.from, mined.nonce);
  if (!call) return false;
  return recordCallPaid(deps, { ...call, authorization: { ...call.authorization, ...mined } });
}
