import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { settleX402 } from '../../../app/x402/settlePayment.ts';
import { supportedKinds, verifyX402, type X402Payment } from '../../../app/x402/verifyPayment.ts';
import type { X402Requirements } from '../../../domain/x402.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { merchantPlugin, merchantRoutes } from '../merchantRoutes.ts';
import {
  X402PaymentBody,
  type X402PaymentBodyType,
  X402SettleResponse,
  X402SupportedResponse,
  X402VerifyResponse,
} from '../x402Schemas.ts';

/** Where the facilitator answers: a resource server's `facilitator.url` is this under the API's base URL. */
export const X402_BASE_PATH = '/payments/api/x402';

/**
 * The x402 v2 facilitator (decision 0059): `GET …/supported`, `POST …/verify`, `POST …/settle`, with the paths
 * x402's HTTP facilitator client calls (no trailing slash; the server ignores one either way). Authenticated by a
 * merchant's key with the scope `x402:settle`: every call settles to that merchant's own x402 address. A refused
 * payment is a 200 answer with `isValid: false` / `success: false` and x402's reason code, as x402 clients expect;
 * only a body that is no x402 request at all is a 400.
 */
export function x402Api(deps: ApiDeps): FastifyPluginAsyncZod {
  const facilitator = deps.x402;
  return merchantPlugin(deps, (app) => {
    const routes = merchantRoutes(app, 'x402');
    routes.get(
      `${X402_BASE_PATH}/supported`,
      'x402:settle',
      'x402: what this facilitator settles',
      {
        description:
          'Each kind’s `extra` says what the merchant’s routes advertise: `payTo` (its x402 address), `asset`, and the token’s EIP-712 `name` and `version`.',
        response: { 200: X402SupportedResponse },
      },
      async (_request, caller) =>
        facilitator ? supportedKinds(facilitator, caller) : { kinds: [], extensions: [], signers: {} },
    );
    routes.post(
      `${X402_BASE_PATH}/verify`,
      'x402:settle',
      'x402: verify a payment without settling it',
      {
        description:
          'Checks an exact-scheme EVM payment (EIP-3009) against the requirements and the chain, spending no gas.',
        body: X402PaymentBody,
        response: { 200: X402VerifyResponse },
      },
      async (request, caller) => {
        const payment = paymentOf(request.body);
        if (!facilitator) return { isValid: false, ...unavailable(payment) };
        return (await verifyX402(facilitator, caller, payment)).verdict;
      },
    );
    routes.post(
      `${X402_BASE_PATH}/settle`,
      'x402:settle',
      'x402: settle a payment',
      {
        description:
          'Relays the authorization once (a replay answers the first outcome) and records the call as a payment.',
        body: X402PaymentBody,
        response: { 200: X402SettleResponse },
      },
      async (request, caller) => {
        const payment = paymentOf(request.body);
        if (!facilitator) {
          const { invalidReason, invalidMessage, payer } = unavailable(payment);
          return {
            success: false,
            errorReason: invalidReason,
            errorMessage: invalidMessage,
            payer,
            transaction: '',
            network: payment.requirements.network,
          };
        }
        return settleX402(facilitator, caller, payment);
      },
    );
  });
}

/** Where no gasless relayer is configured, nothing can be settled: no network is served. */
function unavailable(payment: X402Payment) {
  return {
    invalidReason: 'invalid_exact_evm_network_mismatch',
    invalidMessage: 'This Paylink settles no x402 payment: it has no gasless relayer',
    payer: payment.authorization.from,
  };
}

function requirementsOf(r: X402PaymentBodyType['paymentRequirements']): X402Requirements {
  return {
    scheme: r.scheme,
    network: r.network,
    asset: r.asset,
    amountBaseUnits: BigInt(r.amount),
    payTo: r.payTo,
  };
}

/** The request as the use cases take it: addresses and the nonce in lower case, amounts in bigint. */
function paymentOf(body: X402PaymentBodyType): X402Payment {
  const { authorization, signature } = body.paymentPayload.payload;
  const { resource } = body.paymentPayload;
  return {
    requirements: requirementsOf(body.paymentRequirements),
    accepted: requirementsOf(body.paymentPayload.accepted),
    authorization: {
      from: authorization.from.toLowerCase(),
      to: authorization.to.toLowerCase(),
      valueBaseUnits: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce.toLowerCase(),
    },
    signature,
    resource: resource && { url: resource.url, description: resource.description },
  };
}
