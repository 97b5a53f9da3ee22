import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Ledger } from '../../app/chain/ports.ts';
import type { AcceptAuthorizationInput } from '../../app/gasless/acceptAuthorization.ts';
import type { GaslessAuthorization } from '../../app/gasless/ports.ts';
import { isPaymentId } from '../../app/payments/getPaymentStatus.ts';
import type { PaymentStore } from '../../app/payments/ports.ts';
import type { Clock, RateLimitStore } from '../../app/shared/ports.ts';
import { errorResponseOf, type FieldProblem, PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { Payment } from '../../domain/payment.ts';
import type { BucketPolicy } from '../../domain/tokenBucket.ts';
import {
  type AuthorizationDomain,
  TRANSFER_AUTHORIZATION_TYPES,
  type TransferAuthorization,
} from '../../domain/transferAuthorization.ts';
import { refusedByRateLimits } from './pageRateLimit.ts';
import type { PaymentNetwork } from './paymentNetworks.ts';

/** What the checkout needs to offer gasless payment; absent when the operator switched it off. */
export interface CheckoutGasless {
  /** The token's EIP-712 domain on that chain, or undefined when gasless payment is not offered there. */
  domainFor(chainId: number, token: string): Promise<AuthorizationDomain | undefined>;
  accept(input: AcceptAuthorizationInput): Promise<GaslessAuthorization>;
  /**
   * What a signed transfer must carry now (`gaslessAmountDue`): throws GASLESS_UNAVAILABLE, saying how much to
   * send from the wallet, when that is below the least the relayer sends.
   */
  amountDue(payment: Payment): Promise<bigint>;
  readonly buckets: RateLimitStore;
}

/**
 * Submissions per payment and per client address: a page sends one, perhaps a second after the customer
 * cancels in the wallet; more is someone trying signatures against the server.
 */
const GASLESS_LIMITS: { readonly perPayment: BucketPolicy; readonly perClient: BucketPolicy } = {
  perPayment: { ratePerSecond: 1 / 60, burst: 5 },
  perClient: { ratePerSecond: 1 / 60, burst: 10 },
};

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT = /^\d{1,78}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

const CHAIN_ID = /^\d{1,12}$/;

interface Params {
  Params: { id: string };
  Querystring: { chain?: string };
}

/**
 * `GET /pay/:id/gasless.json?chain=`: what the wallet is asked to sign on that network (the token's domain, the
 * deposit address, the amount due, the latest validity the server accepts), or 409 GASLESS_UNAVAILABLE.
 * `POST /pay/:id/authorization`: the signed authorization, with its `chain_id` → 202 once accepted (relayed by
 * that chain's worker job), or the API's error shape with the reason. Rate limited per payment and per client
 * address. The network is one the payment is offered on (`networksOf`, decision 0033); without one, its home chain.
 */
export function registerGaslessRoutes(
  app: FastifyInstance,
  deps: {
    readonly gasless: CheckoutGasless;
    readonly payments: Pick<PaymentStore, 'findById'>;
    readonly ledger: Pick<Ledger, 'listTransfers'>;
    readonly clock: Clock;
    /** The networks a payment is offered on, home first (paymentNetworks.ts). */
    readonly networksOf: (deposit: NonNullable<Payment['deposit']>) => PaymentNetwork[];
  },
): void {
  const fail = (reply: FastifyReply, error: PaylinkError) =>
    reply.status(error.status).send(errorResponseOf(error));

  app.get<Params>('/pay/:id/gasless.json', { logLevel: 'warn' }, async (request, reply) => {
    const id = request.params.id.toLowerCase();
    const payment = isPaymentId(id) ? await deps.payments.findById(id) : undefined;
    if (!payment?.deposit) return fail(reply, new PaylinkError('NOT_FOUND', 'Payment not found'));
    const network = networkNamed(deps.networksOf(payment.deposit), request.query.chain);
    if (network instanceof PaylinkError) return fail(reply, network);
    const domain = await deps.gasless.domainFor(network.chainId, network.tokenAddress);
    if (!domain)
      return fail(
        reply,
        new PaylinkError('GASLESS_UNAVAILABLE', 'Gasless payment is not offered for this token'),
      );
    let due: bigint;
    try {
      due = await deps.gasless.amountDue(payment);
    } catch (error) {
      if (error instanceof PaylinkError) return fail(reply, error);
      throw error;
    }
    return {
      // The typed data to sign, but for the message the page completes (from, nonce): nothing restated there.
      types: TRANSFER_AUTHORIZATION_TYPES,
      primary_type: 'TransferWithAuthorization',
      domain,
      to: payment.deposit.depositAddress,
      value: due.toString(),
      // The link's expiry: the server accepts up to 10 minutes more, the wallet shows this.
      valid_before: Math.ceil(payment.expiresAt.getTime() / 1000).toString(),
    };
  });

  // An authorization is a few hundred bytes of JSON.
  app.post<Params>('/pay/:id/authorization', { bodyLimit: 4_096 }, async (request, reply) => {
    const id = request.params.id.toLowerCase();
    if (!isPaymentId(id)) return fail(reply, new PaylinkError('NOT_FOUND', 'Payment not found'));
    const limited = await refusedByRateLimits(
      deps.gasless.buckets,
      [
        [`gasless:payment:${id}`, GASLESS_LIMITS.perPayment],
        [`gasless:client:${request.ip}`, GASLESS_LIMITS.perClient],
      ],
      deps.clock.now(),
      reply,
    );
    if (limited) return fail(reply, limited);
    const parsed = parseAuthorization(request.body);
    if (parsed instanceof PaylinkError) return fail(reply, parsed);
    const payment = await deps.payments.findById(id);
    if (!payment?.deposit) return fail(reply, new PaylinkError('NOT_FOUND', 'Payment not found'));
    const network = networkNamed(deps.networksOf(payment.deposit), parsed.chainId);
    if (network instanceof PaylinkError) return fail(reply, network);
    try {
      const accepted = await deps.gasless.accept({
        paymentId: id,
        authorization: parsed.authorization,
        signature: parsed.signature,
        clientAddress: request.ip,
        network,
      });
      return reply.status(202).send({ authorization_id: accepted.id, status: accepted.status });
    } catch (error) {
      if (error instanceof PaylinkError) return fail(reply, error);
      throw error;
    }
  });
}

/**
 * The offered network named by `chain` (a chain id, as text), or the home chain when none is named; a malformed
 * id, or a network the payment is not offered on, is a 400 on field `chain_id`.
 */
function networkNamed(
  offered: readonly PaymentNetwork[],
  chain: string | undefined,
): { chainId: number; tokenAddress: string } | PaylinkError {
  const home = offered[0]!;
  const named =
    chain === undefined ? home : offered.find((n) => CHAIN_ID.test(chain) && n.chainId === Number(chain));
  if (!named)
    return new ValidationError([{ field: 'chain_id', message: 'not a network this payment is offered on' }]);
  return { chainId: named.chainId, tokenAddress: named.usdcAddress };
}

function parseAuthorization(
  body: unknown,
): { authorization: TransferAuthorization; signature: string; chainId: string | undefined } | PaylinkError {
  const problems: FieldProblem[] = [];
  const field = (name: string, pattern: RegExp): string => {
    const value = (body as Record<string, unknown> | null)?.[name];
    if (typeof value === 'string' && pattern.test(value)) return value;
    problems.push({ field: name, message: 'missing or malformed' });
    return '';
  };
  const from = field('from', ADDRESS);
  const to = field('to', ADDRESS);
  const value = field('value', UINT);
  const validAfter = field('valid_after', UINT);
  const validBefore = field('valid_before', UINT);
  const nonce = field('nonce', BYTES32);
  const signature = field('signature', SIGNATURE);
  // Optional: a page from before networks posts none, for the home chain.
  const rawChain = (body as Record<string, unknown> | null)?.chain_id;
  const chainId =
    rawChain === undefined
      ? undefined
      : typeof rawChain === 'number' || typeof rawChain === 'string'
        ? String(rawChain)
        : '';
  if (chainId !== undefined && !CHAIN_ID.test(chainId))
    problems.push({ field: 'chain_id', message: 'missing or malformed' });
  // Every field at fault in one answer: the page's script can show them together.
  if (problems.length > 0) return new ValidationError(problems);
  return {
    authorization: {
      from: from.toLowerCase(),
      to: to.toLowerCase(),
      valueBaseUnits: BigInt(value),
      validAfter: BigInt(validAfter),
      validBefore: BigInt(validBefore),
      nonce: nonce.toLowerCase(),
    },
    signature: signature.toLowerCase(),
    chainId,
  };
}
