import { randomToken } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { type Payment, paymentTerms } from '../../domain/payment.ts';
import { derivePaymentState } from '../../domain/paymentStatus.ts';
import {
  describeRefusal,
  refuseAuthorization,
  signedTransferDueBaseUnits,
  type TransferAuthorization,
} from '../../domain/transferAuthorization.ts';
import type { Ledger } from '../chain/ports.ts';
import type { PaymentStore } from '../payments/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { AuthorizationChain, GaslessAuthorization, GaslessStore } from './ports.ts';
import { NOT_YET_SENT } from './relayedTransaction.ts';

export interface AcceptAuthorizationDeps {
  readonly payments: Pick<PaymentStore, 'findById'>;
  readonly ledger: Pick<Ledger, 'listTransfers'>;
  readonly gasless: GaslessStore;
  /** The chains gasless payment is offered on (an operator may switch it off: then none). */
  readonly chains: readonly AuthorizationChain[];
  readonly clock: Clock;
  /** The least a signed transfer may carry (PAYLINK_MIN_AMOUNT): below it the relayer's gas is worth more. */
  readonly minValueBaseUnits: bigint;
}

export interface AcceptAuthorizationInput {
  readonly paymentId: string;
  readonly authorization: TransferAuthorization;
  readonly signature: string;
  readonly clientAddress: string;
  /**
   * The network the customer signs on, as the checkout offers it for this payment (paymentNetworks.ts, decision
   * 0033): its chain and that chain's USDC. Absent: the payment's home chain and its own token.
   */
  readonly network?: { readonly chainId: number; readonly tokenAddress: string } | undefined;
}

/**
 * Takes a customer's signed EIP-3009 authorization for a payment, to be relayed by the worker. Everything that
 * could make the relayer spend gas for nothing is checked first, cheapest first: the payment and what is still
 * due, the authorization's terms, the token's support, the signature, the nonce, then a simulation of the very
 * call the relayer will make (the token's own reason, e.g. a balance too low, is passed on). Nothing is stored
 * unless all of that holds, and a payment never has two authorizations in flight.
 */
export async function acceptAuthorization(
  deps: AcceptAuthorizationDeps,
  input: AcceptAuthorizationInput,
): Promise<GaslessAuthorization> {
  const payment = await deps.payments.findById(input.paymentId);
  if (!payment?.deposit) throw new PaylinkError('NOT_FOUND', 'Payment not found');
  const { deposit } = payment;
  const chainId = input.network?.chainId ?? deposit.chainId;
  const chain = deps.chains.find((c) => c.chainId === chainId);
  if (!chain)
    throw new PaylinkError(
      'GASLESS_UNAVAILABLE',
      'Gasless payment is not offered here; send USDC from your wallet',
    );

  const now = deps.clock.now();
  // A transfer mined after expiry still counts (late), but nobody should be asked to sign one then.
  if (now.getTime() > payment.expiresAt.getTime())
    throw new PaylinkError('PAYMENT_EXPIRED', 'This payment link has expired');
  const { authorization } = input;
  const terms = {
    depositAddress: deposit.depositAddress.toLowerCase(),
    amountDueBaseUnits: await signedTransferDue(deps, payment, now),
    minValueBaseUnits: deps.minValueBaseUnits,
    expiresAt: payment.expiresAt,
    now,
  };
  const refusal = refuseAuthorization(authorization, terms);
  // A remainder too small for the relayer is no fault of the customer's signature: the page falls back to the
  // ordinary transfer on GASLESS_UNAVAILABLE, and the message says how much to send.
  if (refusal === 'DUE_BELOW_MINIMUM')
    throw new PaylinkError('GASLESS_UNAVAILABLE', describeRefusal(refusal, terms));
  if (refusal === 'VALUE_ABOVE_DUE' || refusal === 'VALUE_BELOW_DUE')
    throw new PaylinkError('VALIDATION_ERROR', describeRefusal(refusal, terms), { field: 'value' });
  if (refusal) throw new PaylinkError('VALIDATION_ERROR', describeRefusal(refusal, terms));

  // The deposit address is the same on every network the checkout offers (decision 0028): only the token differs.
  const token = (input.network?.tokenAddress ?? deposit.tokenAddress).toLowerCase();
  const domain = await chain.domainOf(token);
  if (!domain)
    throw new PaylinkError(
      'GASLESS_UNAVAILABLE',
      'This token does not support signed transfers; send it from your wallet',
    );
  const signer = await chain.recoverSigner(domain, authorization, input.signature);
  if (signer !== authorization.from)
    throw new PaylinkError(
      'VALIDATION_ERROR',
      'The signature does not match the authorization: nothing was sent',
      { field: 'signature' },
    );
  if (await chain.isUsed(token, authorization.from, authorization.nonce))
    throw new PaylinkError('AUTHORIZATION_USED', 'This authorization was already used; sign a new one');
  const tokenRefusal = await chain.refusalOf(token, authorization, input.signature);
  if (tokenRefusal !== undefined)
    throw new PaylinkError('VALIDATION_ERROR', `The token would refuse this transfer: ${tokenRefusal}`);

  const record: GaslessAuthorization = {
    ...authorization,
    id: `gas_${randomToken(22)}`,
    paymentId: payment.id,
    // Relayed by that chain's gasless relayer; the watcher of that chain then records its transfer (decision 0030).
    chainId,
    tokenAddress: token,
    signature: input.signature.toLowerCase(),
    clientAddress: input.clientAddress,
    status: 'pending',
    ...NOT_YET_SENT,
    createdAt: now,
    finishedAt: null,
  };
  const outcome = await deps.gasless.insert(record);
  if (outcome === 'nonce-used')
    throw new PaylinkError('AUTHORIZATION_USED', 'This authorization was already submitted; sign a new one');
  if (outcome === 'in-flight')
    throw new PaylinkError(
      'AUTHORIZATION_IN_FLIGHT',
      'A signed payment for this link is already on its way; wait for it',
    );
  return record;
}

/**
 * What the checkout asks the customer to sign for this payment now (gasless.json): what is due, or
 * GASLESS_UNAVAILABLE, saying how much to send from the wallet, when that is below the least the relayer sends.
 */
export async function gaslessAmountDue(
  deps: Pick<AcceptAuthorizationDeps, 'ledger' | 'gasless' | 'clock' | 'minValueBaseUnits'>,
  payment: Payment,
): Promise<bigint> {
  const due = await signedTransferDue(deps, payment, deps.clock.now());
  if (due > 0n && due < deps.minValueBaseUnits)
    throw new PaylinkError(
      'GASLESS_UNAVAILABLE',
      describeRefusal('DUE_BELOW_MINIMUM', {
        amountDueBaseUnits: due,
        minValueBaseUnits: deps.minValueBaseUnits,
      }),
    );
  return due;
}

/**
 * What a signed transfer must carry for this payment now (`signedTransferDueBaseUnits`): the price less the
 * transfers seen and less the authorizations already mined that the watcher has not recorded yet.
 */
export async function signedTransferDue(
  deps: Pick<AcceptAuthorizationDeps, 'ledger' | 'gasless'>,
  payment: Payment,
  now: Date,
): Promise<bigint> {
  const transfers = await deps.ledger.listTransfers(payment.id);
  const state = derivePaymentState(paymentTerms(payment), transfers, now);
  const recorded = new Set(transfers.map((t) => t.txHash.toLowerCase()));
  let relayedUnseen = 0n;
  for (const relayed of await deps.gasless.listForPayment(payment.id))
    if (relayed.status === 'mined' && !recorded.has(relayed.txHash!.toLowerCase()))
      relayedUnseen += relayed.valueBaseUnits;
  return signedTransferDueBaseUnits(payment, state, relayedUnseen);
}
