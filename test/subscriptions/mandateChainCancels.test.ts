/**
 * A mandate canceled on chain (decision 0061), on a real anvil chain whose `finalized` block trails its head by two
 * (`--slots-in-an-epoch 1`), on SQLite and PostgreSQL: the customer sends the charger's `cancel(terms)` from their
 * own wallet, not through the portal; the worker's job reads the charger's `Canceled` logs of final blocks, and
 * marks the mandate canceled once the cancel's block is final, not a block before; the next period is then
 * e-mailed, not charged. A cancel that a reorg removes before finality leaves the mandate live.
 */

import type { FastifyInstance } from 'fastify';
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { subscriptionChargerAbi, testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { chargerLogReader } from '../../src/adapters/chain/subscriptionCharger.ts';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { chainCancelRepository } from '../../src/adapters/db/chainCancelRepository.ts';
import { inProcessSingletonLocks } from '../../src/adapters/db/singletonLocks.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { type ChainCancelDeps, readChainCancelsOnce } from '../../src/app/subscriptions/chainCancels.ts';
import { submitMandate } from '../../src/app/subscriptions/mandates.ts';
import { createPlan } from '../../src/app/subscriptions/plans.ts';
import { relayChargeOnce } from '../../src/app/subscriptions/relayCharges.ts';
import { renewDueSubscriptions } from '../../src/app/subscriptions/renewal.ts';
import { createSubscription } from '../../src/app/subscriptions/subscriptions.ts';
import { loadConfig } from '../../src/config/index.ts';
import { termsJson } from '../../src/domain/subscriptionMandate.ts';
import { periodStart } from '../../src/domain/subscriptionPeriods.ts';
import { buildApiServer, buildCheckoutServer } from '../../src/main/webServers.ts';
import { runWorker } from '../../src/main/worker.ts';
import { type ChainHarness, ROLES, startChainHarness, workerChainOf } from '../helpers/chainHarness.ts';
import { DASHBOARD_ORIGIN, dashboardClient } from '../helpers/dashboardClient.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { until } from '../helpers/net.ts';
import { type PullScene, startPullScene } from '../helpers/pullScene.ts';

const MONTH = { unit: 'month', count: 1 } as const;

describe.each(dialects)('mandates canceled on chain on %s', (dialect) => {
  let h: ChainHarness;
  let scene: PullScene;
  let watching: ChainCancelDeps;
  let lines: string[];
  let api: FastifyInstance;
  let checkout: FastifyInstance;
  let portalBase: string;
  let dashboard: ReturnType<typeof dashboardClient>;

  beforeAll(async () => {
    h = await startChainHarness(dialect);
    scene = await startPullScene(h);
    lines = [];
    watching = {
      chain: chargerLogReader(createRpcClient([h.anvil.rpcUrl]), { kind: 'finalized' }),
      store: chainCancelRepository(h.database.handle),
      clock: h.clock,
      logger: {
        info: (_fields: object, message: string) => lines.push(message),
        warn: () => undefined,
        error: () => undefined,
      } as unknown as ChainCancelDeps['logger'],
    };
    const approve = await h.anvil.wallet(ROLES.customer).writeContract({
      address: h.usdc,
      abi: testUsdcAbi,
      functionName: 'approve',
      args: [scene.chain.charger as Address, 1_000_000_000n],
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: approve });
    // The portal (checkout) and the merchant's dashboard (API server) over the same stores.
    const { logger } = capturingLogger();
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger,
      network: { name: 'Sandbox (local anvil)', chainId: scene.chain.chainId, explorerUrl: '' },
      subscriptionPages: {
        renewal: scene.renewal,
        buckets: memoryBucketStore(),
        receiptTokens: h.stores.receiptTokens,
        checkoutUrl: 'https://pay.example.test',
      },
      mandatePages: scene.mandatePages(memoryBucketStore()),
    });
    portalBase = await checkout.listen({ host: '127.0.0.1', port: 0 });
    api = await buildApiServer({
      ...h.stores,
      paymentChanges: h.database.handle.followPaymentChanges(logger),
      deposits: { live: h.deposits },
      rates: h.rates,
      clock: h.clock,
      logger,
      passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }),
      config: loadConfig({
        PAYLINK_DATABASE_URL: h.database.url,
        PAYLINK_CHECKOUT_URL: 'https://pay.example.test',
        PAYLINK_BASE_URL: DASHBOARD_ORIGIN,
        PAYLINK_NETWORK: 'sandbox',
        PAYLINK_RATE_LIMIT: 'off',
        PAYLINK_RATE_LIMIT_IP: 'off',
      }),
    });
    dashboard = dashboardClient({ app: api, stores: h.stores, clock: h.clock });
  });
  afterAll(async () => {
    await checkout?.close();
    await api?.close();
    await h?.close();
  });

  let signIns = 0;
  /** What the portal's and the dashboard's pages of the subscription say of its wallet. */
  const pagesOf = async (id: string) => {
    const token = (await h.stores.subscriptions.find(id))!.subscription.portalToken;
    const portal = await (await fetch(`${portalBase}/subscriptions/${token}`)).text();
    // Signed in anew each time: the clocks move by months between two looks, past a session's life.
    signIns += 1;
    const merchant = await dashboard.signedIn(`owner${signIns}@corner.example`, 'merchant', h.merchant.id);
    const page = await merchant.get(`/dashboard/subscriptions/${id}`);
    expect(page.statusCode).toBe(200);
    return { portal, dashboard: page.body };
  };

  const pass = () =>
    readChainCancelsOnce(watching, {
      chainId: scene.chain.chainId,
      charger: scene.chain.charger,
      maxBlockRange: 5,
    });
  const finalized = async () => (await h.anvil.publicClient.getBlock({ blockTag: 'finalized' })).number;
  const mineBlock = () => h.anvil.testClient.mine({ blocks: 1 });
  const emailsOf = (paymentId: string | undefined) => scene.emailsOf(paymentId);

  /** A monthly 10 USDC plan of three periods, subscribed by the customer's wallet with its terms signed. */
  const subscribedWithMandate = async (naming: 'wallet' | 'any wallet' = 'wallet') => {
    const { plan } = await createPlan(scene.renewal, h.merchant.id, 'live', {
      name: 'Coffee club',
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
      intervalUnit: 'month',
      graceDays: '3',
      periods: '3',
    });
    const { subscription } = await createSubscription(scene.renewal, h.merchant.id, 'live', {
      planId: plan.id,
      customerEmail: 'ada@example.com',
      ...(naming === 'wallet' ? { customerWallet: h.addresses.customer } : {}),
    });
    const token = subscription.subscription.portalToken;
    const { terms, signature } = await scene.signedTerms(token);
    await submitMandate(scene.mandateDeps, token, { terms: termsJson(terms), signature });
    return { id: subscription.subscription.id, anchor: subscription.subscription.anchor, terms, token };
  };

  /** The customer's own `cancel(terms)`, from their wallet: its hash and block. */
  const cancelOnChain = async (terms: Awaited<ReturnType<typeof subscribedWithMandate>>['terms']) => {
    const hash = await h.anvil.wallet(ROLES.customer).writeContract({
      address: scene.chain.charger as Address,
      abi: subscriptionChargerAbi,
      functionName: 'cancel',
      args: [terms],
    });
    const receipt = await h.anvil.publicClient.waitForTransactionReceipt({ hash });
    return { hash, block: receipt.blockNumber };
  };

  it('cancels the mandate once the cancel is final, not a block before, and e-mails the next period', async () => {
    const { id, anchor, terms } = await subscribedWithMandate();
    // Period 1 charged from the wallet as usual.
    await scene.moveTo(periodStart(anchor, MONTH, 1));
    await renewDueSubscriptions(scene.renewal, 50);
    expect((await relayChargeOnce(scene.relay)).kind).toBe('sent');
    const charged = (await h.stores.mandates.findCharge(id, 1))?.txHash as Hex;
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: charged });
    await h.anvil.testClient.mine({ blocks: 2 }); // its block final: a charge is applied once final
    expect((await relayChargeOnce(scene.relay)).kind).toBe('mined');
    await pass();
    const live = await pagesOf(id);
    expect(live.dashboard).toContain(`yes, <code>${h.addresses.customer}</code>`);
    expect(live.portal).toContain('Revoke on chain');
    expect(live.portal).not.toContain('Canceled on chain');

    const cancel = await cancelOnChain(terms);
    // The cancel is in the head block, two above the final one, then one: the mandate stays live.
    expect(await finalized()).toBe(cancel.block - 2n);
    expect(await pass()).toBe('idle');
    expect((await h.stores.mandates.findMandate(id))?.status).toBe('active');
    await mineBlock();
    expect(await finalized()).toBe(cancel.block - 1n);
    await pass();
    expect((await h.stores.mandates.findMandate(id))?.status).toBe('active');
    expect(await scene.renewal.pull?.hasLiveMandate(id)).toBe(true);

    await mineBlock();
    expect(await finalized()).toBe(cancel.block);
    await pass();
    const canceled = await h.stores.mandates.findMandate(id);
    expect(canceled?.status).toBe('canceled');
    expect(canceled?.canceledOnChain?.txHash).toBe(cancel.hash.toLowerCase());
    const block = await h.anvil.publicClient.getBlock({ blockNumber: cancel.block });
    expect(canceled?.canceledOnChain?.at.getTime()).toBe(Number(block.timestamp) * 1000);
    expect(lines).toContain(
      'mandate canceled on chain by its customer: its periods are e-mailed from now on',
    );
    // Read again (the cursor moved back over it), it is marked once.
    const marked = lines.length;
    await h.database.handle.db
      .updateTable('charger_cursors')
      .set({ next_block: cancel.block.toString() })
      .execute();
    await pass();
    expect(lines.length).toBe(marked);
    expect((await h.stores.mandates.findMandate(id))?.canceledOnChain?.txHash).toBe(
      cancel.hash.toLowerCase(),
    );

    // The next period is billed ahead and e-mailed, as push; when due, nothing is charged.
    await scene.moveTo(new Date(periodStart(anchor, MONTH, 2).getTime() - 86_400_000));
    await renewDueSubscriptions(scene.renewal, 50);
    const second = (await h.stores.subscriptions.find(id))!.periods.find((p) => p.period === 2);
    expect(second?.paymentStatus).toBe('pending');
    expect(await emailsOf(second?.paymentId)).toBe(1);
    await scene.moveTo(periodStart(anchor, MONTH, 2));
    await renewDueSubscriptions(scene.renewal, 50);
    expect(await h.stores.mandates.findCharge(id, 2)).toBeUndefined();
    expect((await relayChargeOnce(scene.relay)).kind).toBe('idle');
    await h.stores.subscriptions.cancel(id, { at: h.clock.now(), by: 'merchant' }, h.clock.now());
  });

  it('leaves the mandate live when a reorg removes the cancel before it was final', async () => {
    const { id, terms } = await subscribedWithMandate();
    await pass();
    const cancel = await cancelOnChain(terms);
    expect(await pass()).toBe('idle'); // not final yet
    // The cancel's block replaced by an empty one at the same height, before finality.
    await h.anvil.publicClient.request({ method: 'anvil_reorg', params: [1, []] } as never);
    const replaced = await h.anvil.publicClient.getBlock({ blockNumber: cancel.block });
    expect(replaced.transactions).toEqual([]);
    await h.anvil.testClient.mine({ blocks: 3 });
    expect(await finalized()).toBeGreaterThan(cancel.block);
    await pass();
    expect((await h.stores.mandates.findMandate(id))?.status).toBe('active');
    expect((await h.stores.mandates.findMandate(id))?.canceledOnChain).toBeNull();
    expect(await scene.renewal.pull?.hasLiveMandate(id)).toBe(true);
    // The chain agrees: the cancel is in no block, so the mandate can still be charged.
    await expect(h.anvil.publicClient.getTransactionReceipt({ hash: cancel.hash })).rejects.toThrow();
    await h.stores.subscriptions.cancel(id, { at: h.clock.now(), by: 'merchant' }, h.clock.now());
  });
  it("is read by the worker under the chain watcher's lock, its line naming the chain once", async () => {
    const { id, terms } = await subscribedWithMandate();
    const cancel = await cancelOnChain(terms);
    await h.finalizeAll();
    const { logger, text } = capturingLogger();
    const config = loadConfig({
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_POLL_INTERVAL: '20ms',
      PAYLINK_START_BLOCK: '0',
    });
    const stop = new AbortController();
    const worker = runWorker(
      {
        ...h.stores,
        locks: inProcessSingletonLocks(),
        clock: h.clock,
        logger,
        config,
        chains: [workerChainOf(h, config.liveHomeChain)],
        mandateCancels: (chainId) =>
          chainId === scene.chain.chainId
            ? { store: h.stores.chainCancels, charger: scene.chain.charger }
            : undefined,
      },
      stop.signal,
    );
    try {
      await until(
        'the mandate canceled on chain',
        async () => (await h.stores.mandates.findMandate(id))?.canceledOnChain?.txHash,
        (txHash) => txHash === cancel.hash.toLowerCase(),
        { everyMs: 25 },
      );
    } finally {
      stop.abort();
      await worker;
    }
    const line = text()
      .split('\n')
      .find((l) => l.includes('mandate canceled on chain by its customer'));
    expect(line?.match(/"chainId"/g)).toHaveLength(1);
    expect(JSON.parse(line!)).toMatchObject({
      chainId: h.anvil.chain.id,
      subscription: id,
      txHash: cancel.hash.toLowerCase(),
    });
    await h.stores.subscriptions.cancel(id, { at: h.clock.now(), by: 'merchant' }, h.clock.now());
  });
  it('keeps the cancel with its terms when they are saved again, and drops it with them for new terms', async () => {
    const { id, terms, token } = await subscribedWithMandate('any wallet');
    await pass();
    const cancel = await cancelOnChain(terms);
    await h.finalizeAll();
    await pass();
    const canceled = (await h.stores.mandates.findMandate(id))!;
    expect(canceled.canceledOnChain?.txHash).toBe(cancel.hash.toLowerCase());
    // The same terms saved again from a stale read (as the relayer's refusal or a switch to e-mail write them).
    await h.stores.mandates.saveMandate({ ...canceled, canceledOnChain: null, updatedAt: h.clock.now() });
    expect((await h.stores.mandates.findMandate(id))?.canceledOnChain?.txHash).toBe(
      cancel.hash.toLowerCase(),
    );
    // New terms, signed by another wallet: a new mandate, live, with no cancel of its own.
    const other = await scene.signedTerms(token, { payer: 3 });
    await submitMandate(scene.mandateDeps, token, {
      terms: termsJson(other.terms),
      signature: other.signature,
    });
    const renewed = await h.stores.mandates.findMandate(id);
    expect(renewed?.mandateId).not.toBe(canceled.mandateId);
    expect(renewed?.status).toBe('active');
    expect(renewed?.canceledOnChain).toBeNull();
    // The old terms' cancel, read again, does not touch the new mandate.
    await h.database.handle.db
      .updateTable('charger_cursors')
      .set({ next_block: cancel.block.toString() })
      .execute();
    await pass();
    expect((await h.stores.mandates.findMandate(id))?.status).toBe('active');
    await h.stores.subscriptions.cancel(id, { at: h.clock.now(), by: 'merchant' }, h.clock.now());
  });
});
