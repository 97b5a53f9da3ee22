import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock, RateLimitStore } from '../../app/shared/ports.ts';
import type { Mandate } from '../../app/subscriptions/mandatePorts.ts';
import type { MandateRequest } from '../../app/subscriptions/mandates.ts';
import { errorResponseOf, PaylinkError } from '../../domain/errors.ts';
import type { BucketPolicy } from '../../domain/tokenBucket.ts';
import { refusedByRateLimits } from './pageRateLimit.ts';

/** Pull renewal's public routes (decision 0061), reached by a subscription's customer token; absent: not served. */
export interface CheckoutMandates {
  request(token: string): Promise<MandateRequest>;
  submit(token: string, body: unknown): Promise<Mandate>;
  /** The chain a mode is charged on by pull (the subscribe page's wallet way); undefined: e-mail only. */
  chainOf(mode: 'live' | 'test'): { readonly chainId: number; readonly charger: string } | undefined;
  /** The subscription's mandate, for the portal. */
  mandateOf(subscriptionId: string): Promise<Mandate | undefined>;
  /** What the charger may still take from the mandate's wallet (the portal's top-up); undefined: not known. */
  allowanceLeft?(mandate: Mandate): Promise<bigint | undefined>;
  /** The portal's "Switch to e-mail payments": the mandate canceled. */
  switchToPush(token: string): Promise<Mandate | undefined>;
  readonly buckets: RateLimitStore;
}

/** A page submits a mandate once, perhaps again after signing new terms; more is someone trying signatures. */
const MANDATE_LIMITS: { readonly perToken: BucketPolicy; readonly perClient: BucketPolicy } = {
  perToken: { ratePerSecond: 1 / 60, burst: 5 },
  perClient: { ratePerSecond: 1 / 60, burst: 10 },
};

interface Params {
  Params: { token: string };
}

/**
 * `GET /subscriptions/:token/mandate.json`: the EIP-712 typed data the customer's wallet signs (the terms but
 * the customer's address, and a fiat plan's cap), the charger to grant the allowance to, and the mandate already
 * given, if any. `POST /subscriptions/:token/mandate` `{terms, signature, permit?}`: the signed terms, checked
 * against the subscription → 201, or the API's error shape naming the field at fault.
 */
export function registerMandateRoutes(
  app: FastifyInstance,
  deps: { readonly mandates: CheckoutMandates; readonly clock: Clock },
): void {
  const fail = (reply: FastifyReply, error: unknown) => {
    if (!(error instanceof PaylinkError)) throw error;
    return reply.status(error.status).send(errorResponseOf(error));
  };

  app.get<Params>('/subscriptions/:token/mandate.json', { logLevel: 'warn' }, async (request, reply) => {
    try {
      return await deps.mandates.request(request.params.token);
    } catch (error) {
      return fail(reply, error);
    }
  });

  // Terms, a signature and a permit: well under a kilobyte of JSON.
  app.post<Params>('/subscriptions/:token/mandate', { bodyLimit: 4_096 }, async (request, reply) => {
    const { token } = request.params;
    const limited = await refusedByRateLimits(
      deps.mandates.buckets,
      [
        [`mandate:token:${token.slice(0, 64)}`, MANDATE_LIMITS.perToken],
        [`mandate:client:${request.ip}`, MANDATE_LIMITS.perClient],
      ],
      deps.clock.now(),
      reply,
    );
    if (limited) return fail(reply, limited);
    try {
      const mandate = await deps.mandates.submit(token, request.body);
      return reply.status(201).send({
        status: mandate.status,
        mandate_id: mandate.mandateId,
        customer: mandate.terms.customer,
        chain_id: mandate.chainId,
        charger: mandate.charger,
        cap: mandate.terms.cap.toString(),
        permit: mandate.permit !== null,
      });
    } catch (error) {
      return fail(reply, error);
    }
  });
}
