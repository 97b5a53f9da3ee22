import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MerchantStore } from '../../app/merchants/ports.ts';
import { depositPlannerFor } from '../../app/payments/createPayment.ts';
import { isPaymentId } from '../../app/payments/getPaymentStatus.ts';
import { type ClaimRefundDeps, claimRefund } from '../../app/refunds/claimRefund.ts';
import type { RefundRecord } from '../../app/refunds/ports.ts';
import { checkRefundAddress } from '../../app/refunds/refundAddress.ts';
import type { RateLimitStore } from '../../app/shared/ports.ts';
import { errorResponseOf, PaylinkError, ValidationError } from '../../domain/errors.ts';
import { RefundAddressError } from '../../domain/refund.ts';
import type { BucketPolicy } from '../../domain/tokenBucket.ts';
import type { Language } from '../web/language.ts';
import type { CheckoutNetwork } from '../web/network.ts';
import { qrSvg } from '../web/qrCode.ts';
import { type RefundView, refundFundingLink, refundStatusJson, refundView } from '../web/refundView.ts';
import type { PageAssets } from './pageLayout.ts';
import { refusedByRateLimits } from './pageRateLimit.ts';
import { renderRefundNotFoundPage, renderRefundPage } from './renderRefundPage.ts';

/** What the checkout needs to serve refund claim pages; absent: `/refunds/*` is not served. */
export interface CheckoutRefunds {
  /** The claim itself, as the merchant API's address is checked and the deposit planned. */
  readonly claim: ClaimRefundDeps;
  /**
   * Whether the address holds code on that chain. The page warns before sending a refund to a contract (a
   * smart-contract wallet is fine; a contract that cannot move USDC on is not); it never refuses one.
   */
  isContract(chainId: number, address: string): Promise<boolean>;
  readonly buckets: RateLimitStore;
}

/**
 * Address checks and claims per refund and per client address: a customer checks an address or two and claims
 * once; more is someone probing the server.
 */
const CLAIM_LIMITS: { readonly perRefund: BucketPolicy; readonly perClient: BucketPolicy } = {
  perRefund: { ratePerSecond: 1 / 30, burst: 10 },
  perClient: { ratePerSecond: 1 / 30, burst: 20 },
};

const HTML = 'text/html; charset=utf-8';
const NOT_FOUND = new PaylinkError('NOT_FOUND', 'Refund not found');

type RefundRequest = FastifyRequest<{ Params: { id: string } }>;

/** What the claim page's routes are given by the checkout. */
interface RefundRoutesDeps {
  readonly refunds: CheckoutRefunds;
  readonly merchants: Pick<MerchantStore, 'find'>;
  readonly networkOf: (chainId: number) => CheckoutNetwork;
  readonly languageOf: (request: FastifyRequest) => Language;
  readonly assets: PageAssets;
  readonly pollIntervalMs: number;
}

/**
 * `GET /refunds/:id` the claim page · `GET /refunds/:id/status.json` its status · `POST /refunds/:id/check`
 * an address, judged (`valid`, the `problem` if not, and whether it is a `contract`) · `POST /refunds/:id/claim` the address, given once ·
 * `GET /refunds/:id/funding.svg` the merchant's funding request as a QR code (EIP-681), once the address is known.
 */
export function registerRefundRoutes(app: FastifyInstance, deps: RefundRoutesDeps): void {
  const kit = refundKit(deps);
  pageRoutes(app, deps, kit);
  addressRoutes(app, deps, kit);
}

type RefundKit = ReturnType<typeof refundKit>;

/** A refund's error in the API's shape, with the address problem the page words in the customer's language. */
function fail(reply: FastifyReply, error: PaylinkError) {
  return reply.status(error.status).send({
    ...errorResponseOf(error),
    // The page shows the problem in the customer's language.
    ...(error instanceof RefundAddressError ? { problem: error.problem } : {}),
  });
}

/** Looking a refund up, its view, and what every posted address goes through. */
function refundKit(deps: RefundRoutesDeps) {
  const { claim } = deps.refunds;
  const find = async (id: string): Promise<RefundRecord | undefined> =>
    isPaymentId(id) ? claim.refunds.find(id.toLowerCase()) : undefined;
  const viewOf = async (record: RefundRecord): Promise<RefundView> => {
    const planner = depositPlannerFor(claim.deposits, record.refund.mode);
    const merchant = await deps.merchants.find(record.refund.merchantId);
    return refundView({
      record,
      merchantName: merchant?.name ?? '',
      network: deps.networkOf(planner.chainId),
      tokenAddress: planner.tokenAddress,
      now: claim.clock.now(),
    });
  };
  /** The posted address, or an error; then the rate limits. Answers the request itself when it fails. */
  const admit = async (request: RefundRequest, reply: FastifyReply) => {
    const id = request.params.id.toLowerCase();
    const address = (request.body as { address?: unknown } | null)?.address;
    if (!isPaymentId(id)) return void fail(reply, NOT_FOUND);
    if (typeof address !== 'string') return void fail(reply, new ValidationError('address', 'is required'));
    const limited = await refusedByRateLimits(
      deps.refunds.buckets,
      [
        [`claim:refund:${id}`, CLAIM_LIMITS.perRefund],
        [`claim:client:${request.ip}`, CLAIM_LIMITS.perClient],
      ],
      claim.clock.now(),
      reply,
    );
    if (limited) return void fail(reply, limited);
    return { id, address };
  };
  const answerErrors =
    (handler: (request: RefundRequest, reply: FastifyReply) => Promise<unknown>) =>
    async (request: RefundRequest, reply: FastifyReply) => {
      try {
        return await handler(request, reply);
      } catch (error) {
        if (error instanceof PaylinkError) return fail(reply, error);
        throw error;
      }
    };
  return { claim, find, viewOf, admit, answerErrors };
}

/** The claim page, its status and the funding request's QR code. */
function pageRoutes(app: FastifyInstance, deps: RefundRoutesDeps, { find, viewOf }: RefundKit): void {
  app.get('/refunds/:id', async (request: RefundRequest, reply) => {
    const language = deps.languageOf(request);
    reply.type(HTML).header('vary', 'accept-language').header('content-language', language);
    const record = await find(request.params.id);
    if (!record) return reply.status(404).send(renderRefundNotFoundPage(language, deps.assets));
    return renderRefundPage({
      view: await viewOf(record),
      language,
      assets: deps.assets,
      pollIntervalMs: deps.pollIntervalMs,
    });
  });

  app.get('/refunds/:id/status.json', { logLevel: 'warn' }, async (request: RefundRequest, reply) => {
    const record = await find(request.params.id);
    if (!record) return fail(reply, NOT_FOUND);
    return refundStatusJson(await viewOf(record));
  });

  app.get('/refunds/:id/funding.svg', { logLevel: 'warn' }, async (request: RefundRequest, reply) => {
    const record = await find(request.params.id);
    const link = record && refundFundingLink(record);
    if (!link)
      return reply
        .status(404)
        .type(HTML)
        .send(renderRefundNotFoundPage(deps.languageOf(request), deps.assets));
    return reply.type('image/svg+xml').send(await qrSvg(link));
  });
}

/** An address checked, then given once. */
function addressRoutes(app: FastifyInstance, deps: RefundRoutesDeps, kit: RefundKit): void {
  const { claim, find, viewOf, admit, answerErrors } = kit;
  const postOptions = { bodyLimit: 1_024 };

  app.post(
    '/refunds/:id/check',
    postOptions,
    answerErrors(async (request, reply) => {
      const admitted = await admit(request, reply);
      if (!admitted) return reply;
      const record = await find(admitted.id);
      if (!record) return fail(reply, NOT_FOUND);
      let address: string;
      try {
        address = await checkRefundAddress(claim, record.refund.mode, 'address', admitted.address);
      } catch (error) {
        // The check was made: its answer is that this address will not do, and why (not a failed request).
        if (error instanceof RefundAddressError)
          return { valid: false, problem: error.problem, error: error.message };
        throw error;
      }
      const chainId = depositPlannerFor(claim.deposits, record.refund.mode).chainId;
      // A chain that does not answer must not stop a customer: the warning is a courtesy, the checks above are not.
      const contract = await deps.refunds.isContract(chainId, address).catch((error: unknown) => {
        request.log.warn({ err: error, chainId }, 'could not tell whether a refund address is a contract');
        return null;
      });
      return { valid: true, address, contract };
    }),
  );

  app.post(
    '/refunds/:id/claim',
    postOptions,
    answerErrors(async (request, reply) => {
      const admitted = await admit(request, reply);
      if (!admitted) return reply;
      const record = await claimRefund(claim, admitted.id, admitted.address);
      request.log.info({ refundId: admitted.id }, 'refund address given');
      return refundStatusJson(await viewOf(record));
    }),
  );
}
