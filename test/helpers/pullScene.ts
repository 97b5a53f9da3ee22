import type { Address, Hex } from 'viem';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { deploySubscriptionCharger } from '../../src/adapters/chain/deployContracts.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { allowanceLeft, chargerCalls } from '../../src/adapters/chain/subscriptionCharger.ts';
import type { CheckoutMandates } from '../../src/adapters/checkout/mandateRoutes.ts';
import { customerEmails } from '../../src/adapters/email/customerEmails.ts';
import type { RateLimitStore } from '../../src/app/shared/ports.ts';
import {
  type MandateDeps,
  mandateRequest,
  pullChainOf,
  submitMandate,
  switchToPush,
} from '../../src/app/subscriptions/mandates.ts';
import {
  fallbackOnFailure,
  type PullChain,
  type PullRenewalDeps,
  pullRenewal,
} from '../../src/app/subscriptions/pullCharges.ts';
import type { RelayChargesDeps } from '../../src/app/subscriptions/relayCharges.ts';
import type { RenewalDeps } from '../../src/app/subscriptions/renewal.ts';
import { loadConfig } from '../../src/config/index.ts';
import { type MandateTerms, mandateDomain, mandateTypedData } from '../../src/domain/subscriptionMandate.ts';
import { ANVIL_RELAYER_KEY, type ChainHarness, ROLES } from './chainHarness.ts';

const DAY = 86_400_000;

/**
 * Pull renewal's set-up on a chain harness (decision 0061), as the service wires it: the SubscriptionCharger
 * deployed, the mode `live` charged there, the renewal job with its pull step, the mandate's use cases, the
 * gasless relayer's charges, and the checkout's mandate routes. Shared by the pull renewal tests and the
 * wallet's way in Chromium.
 */
export interface PullScene {
  readonly chain: PullChain;
  readonly pullDeps: PullRenewalDeps;
  readonly renewal: RenewalDeps;
  readonly mandateDeps: MandateDeps;
  readonly relay: RelayChargesDeps;
  /** The checkout's mandate routes over these deps. */
  mandatePages(buckets: RateLimitStore): CheckoutMandates;
  /** How many payment request e-mails are queued for a period's payment (its link sent, rather than charged). */
  emailsOf(paymentId: string | undefined): Promise<number>;
  /** The app's clock and the chain's at `date` (the chain's next block at it, or a second after the last). */
  moveTo(date: Date): Promise<void>;
  /** The customer's terms for a subscription, as its portal's `mandate.json` asks them, signed by `payer`. */
  signedTerms(
    token: string,
    options?: { readonly cap?: bigint | undefined; readonly payer?: number | undefined },
  ): Promise<{ terms: MandateTerms; signature: Hex }>;
}

export async function startPullScene(
  h: ChainHarness,
  checkoutUrl = 'https://pay.example.test',
): Promise<PullScene> {
  const charger = await deploySubscriptionCharger(h.anvil.wallet(ROLES.relayer), h.anvil.publicClient);
  const chain: PullChain = {
    chainId: h.anvil.chain.id,
    charger,
    token: h.usdc,
    treasury: h.addresses.treasury,
  };
  const config = loadConfig({
    PAYLINK_DATABASE_URL: h.database.url,
    PAYLINK_NETWORK: 'sandbox',
    PAYLINK_CHECKOUT_URL: checkoutUrl,
  });
  const paymentRequests = customerEmails(config, () => undefined)?.paymentRequests;
  const pullDeps: PullRenewalDeps = {
    paymentRequests,
    mandates: h.stores.mandates,
    payments: h.stores.payments,
    subscriptions: h.stores.subscriptions,
    merchants: h.stores.merchants,
    clock: h.clock,
    chains: { live: chain },
  };
  const renewal: RenewalDeps = {
    ...h.stores,
    deposits: { live: h.deposits },
    rates: h.rates,
    clock: h.clock,
    maxAmountBaseUnits: 10n ** 12n,
    minAmountBaseUnits: 1n,
    paymentTtlMs: 3_600_000,
    webhookAllowPrivate: true,
    renewalLeadMs: 3 * DAY,
    renewalRecheckMs: 60_000,
    paymentRequests,
    pull: pullRenewal(pullDeps),
  };
  const mandateDeps: MandateDeps = { ...pullDeps, subscriptions: h.stores.subscriptions };
  const client = createRpcClient([h.anvil.rpcUrl]);
  const relay: RelayChargesDeps = {
    mandates: h.stores.mandates,
    relayer: createRelayer({ client, chainId: chain.chainId, relayerKey: ANVIL_RELAYER_KEY }),
    charger: chargerCalls(client, chain.chainId),
    finality: chainReader(client, { kind: 'finalized' }),
    payments: h.stores.payments,
    ledger: h.stores.ledger,
    subscriptions: h.stores.subscriptions,
    clock: h.clock,
    payoutPolicy: { dustThresholdBaseUnits: 0n, delayedAfterMs: 10 * 60_000 },
    logger: { info: () => undefined, warn: () => undefined },
    onFailed: fallbackOnFailure(pullDeps),
  };
  return {
    chain,
    pullDeps,
    renewal,
    mandateDeps,
    relay,
    mandatePages: (buckets) => ({
      request: (token) => mandateRequest(mandateDeps, token),
      submit: (token, body) => submitMandate(mandateDeps, token, body),
      chainOf: (mode) => pullChainOf(mandateDeps, mode),
      mandateOf: (id) => h.stores.mandates.findMandate(id),
      switchToPush: (token) => switchToPush(mandateDeps, token),
      allowanceLeft: (mandate) => allowanceLeft(client, mandate),
      buckets,
    }),
    async emailsOf(paymentId) {
      const queued = await h.database.handle.db
        .selectFrom('email_messages')
        .select('id')
        .where('payment_id', '=', paymentId ?? '')
        .execute();
      return queued.length;
    },
    async moveTo(date) {
      h.clock.set(date);
      const latest = (await h.anvil.publicClient.getBlock()).timestamp;
      const wanted = BigInt(Math.ceil(date.getTime() / 1000));
      await h.anvil.testClient.setNextBlockTimestamp({ timestamp: wanted > latest ? wanted : latest + 1n });
      await h.anvil.testClient.mine({ blocks: 1 });
    },
    async signedTerms(token, options = {}) {
      const wallet = h.anvil.wallet(options.payer ?? ROLES.customer);
      const request = await mandateRequest(mandateDeps, token);
      const message = request.message as Record<string, string | number>;
      const terms: MandateTerms = {
        customer: wallet.account.address,
        merchant: message.merchant as Address,
        treasury: message.treasury as Address,
        feeBps: message.feeBps as number,
        token: message.token as Address,
        cap: options.cap ?? BigInt(request.cap!),
        periodSeconds: message.periodSeconds as number,
        periodMonths: message.periodMonths as number,
        start: BigInt(message.start!),
        periods: message.periods as number,
        end: BigInt(message.end!),
        salt: message.salt as Hex,
      };
      const signature = await wallet.signTypedData(
        mandateTypedData(mandateDomain(chain.chainId, chain.charger), terms),
      );
      return { terms, signature };
    },
  };
}
