/**
 * Pull renewal end to end (decision 0061) on a real anvil chain with the sandbox USDC (Circle's controls) and
 * the SubscriptionCharger, on SQLite and PostgreSQL: the customer's signed terms checked against the
 * subscription; each period's payment charged through the relayer when due (not e-mailed ahead), recorded
 * before broadcast, applied once when its block is final (merchant and treasury exact, the payment paid by the
 * charge's transaction; one block before final nothing is applied, and a charge reorged out then is sent again); a refused charge (blacklist) failed, its link e-mailed and the subscription past due, then tried
 * again on its schedule and paid within the grace; a crash between broadcast and record, or a second worker,
 * still one charge; a fiat period above the cap never charged but e-mailed.
 */
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionChargerAbi, testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { permitTotal } from '../../src/adapters/checkout/renderMandateSections.ts';
import { gaslessRepository } from '../../src/adapters/db/gaslessRepository.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import type { GaslessStore } from '../../src/app/gasless/ports.ts';
import { chargesInBudget } from '../../src/app/gasless/runGaslessRelayer.ts';
import { subscribeFromPage } from '../../src/app/subscriptions/customerPortal.ts';
import type { MandateStore } from '../../src/app/subscriptions/mandatePorts.ts';
import {
  type MandateDeps,
  mandateRequest,
  proposedCap,
  submitMandate,
} from '../../src/app/subscriptions/mandates.ts';
import { createPlan } from '../../src/app/subscriptions/plans.ts';
import type { PullChain } from '../../src/app/subscriptions/pullCharges.ts';
import { type RelayChargesDeps, relayChargeOnce } from '../../src/app/subscriptions/relayCharges.ts';
import { paidPeriods, type RenewalDeps, renewDueSubscriptions } from '../../src/app/subscriptions/renewal.ts';
import { createSubscription } from '../../src/app/subscriptions/subscriptions.ts';
import { deriveSubscriptionState } from '../../src/domain/subscription.ts';
import {
  type MandateTerms,
  mandateDomain,
  mandateTypedData,
  termsJson,
} from '../../src/domain/subscriptionMandate.ts';
import { periodStart } from '../../src/domain/subscriptionPeriods.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ChainHarness, ROLES, startChainHarness } from '../helpers/chainHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { type PullScene, startPullScene } from '../helpers/pullScene.ts';

describe.each(dialects)('pull renewal on %s', (dialect) => {
  let h: ChainHarness;
  let mandates: MandateStore;
  let scene: PullScene;
  let chain: PullChain;
  let renewal: RenewalDeps;
  let mandateDeps: MandateDeps;
  let relay: RelayChargesDeps;
  let checkout: Awaited<ReturnType<typeof buildCheckoutServer>>;
  let base: string;
  let gasless: GaslessStore;

  beforeAll(async () => {
    h = await startChainHarness(dialect);
    mandates = h.stores.mandates;
    gasless = gaslessRepository(h.database.handle);
    scene = await startPullScene(h);
    ({ chain, renewal, mandateDeps, relay } = scene);
    // The customer's plain approve of the charger (the permit is the contract test's).
    const approve = await h.anvil.wallet(ROLES.customer).writeContract({
      address: h.usdc,
      abi: testUsdcAbi,
      functionName: 'approve',
      args: [chain.charger as Address, 1_000_000_000n],
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: approve });
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: { name: 'Sandbox (local anvil)', chainId: chain.chainId, explorerUrl: '' },
      mandatePages: scene.mandatePages(memoryBucketStore()),
      subscriptionPages: {
        renewal,
        buckets: memoryBucketStore(),
        receiptTokens: h.stores.receiptTokens,
        checkoutUrl: 'https://pay.example.test',
      },
    });
    base = await checkout.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await checkout?.close();
    await h?.close();
  });

  /** The app's clock and the chain's at `date` (the chain's next blocks after it). */
  const moveTo = (date: Date) => scene.moveTo(date);
  const emailsOf = (paymentId: string | undefined) => scene.emailsOf(paymentId);

  /** A subscription to a new plan, and the customer's signed terms for it as the subscribe page sends them. */
  const subscribe = async (
    plan: { amount: string; currency: string; trialDays: string; periods?: string | undefined },
    cap?: bigint,
    payer: number = ROLES.customer,
  ) => {
    const wallet = h.anvil.wallet(payer);
    const { plan: made } = await createPlan(renewal, h.merchant.id, 'live', {
      name: 'Coffee club',
      periods: '3',
      ...plan,
      intervalUnit: 'month',
      graceDays: '3',
    });
    const { subscription } = await createSubscription(renewal, h.merchant.id, 'live', {
      planId: made.id,
      customerEmail: 'ada@example.com',
      customerWallet: wallet.account.address,
    });
    const token = subscription.subscription.portalToken;
    const { terms, signature } = await scene.signedTerms(token, { cap, payer });
    return { id: subscription.subscription.id, token, terms, signature };
  };

  /** The customer's mandate given, and its subscription's first period due: the clocks at its anchor, one look. */
  const mandateDue = async (id: string, token: string, terms: MandateTerms, signature: Hex) => {
    await submitMandate(mandateDeps, token, { terms: termsJson(terms), signature });
    const anchor = (await h.stores.subscriptions.find(id))!.subscription.anchor;
    await moveTo(anchor);
    await renewDueSubscriptions(renewal, 50);
    return anchor;
  };

  const periodOf = async (id: string, period: number) => {
    const record = (await h.stores.subscriptions.find(id))!;
    const p = record.periods.find((x) => x.period === period);
    return { record, p, payment: p ? await h.stores.payments.findById(p.paymentId) : undefined };
  };
  /**
   * The node mines a transaction just after it accepts it: the receipt of the charge sent is waited for, so that
   * the relayer's next pass reads it (rather than finding it still pending, which it also handles), and two
   * blocks on top make its block final (`--slots-in-an-epoch 1`): a charge is applied once final.
   */
  const minedOnChain = async (subscriptionId: string, period: number) => {
    const hash = (await mandates.findCharge(subscriptionId, period))?.txHash as Hex;
    await h.anvil.publicClient.waitForTransactionReceipt({ hash });
    await h.anvil.testClient.mine({ blocks: 2 });
  };
  /** Ends a test's subscription, so that the next test's relayer passes see only their own. */
  const cancel = (id: string) =>
    h.stores.subscriptions.cancel(id, { at: h.clock.now(), by: 'merchant' }, h.clock.now());
  const statusOf = async (id: string) => {
    const record = (await h.stores.subscriptions.find(id))!;
    return deriveSubscriptionState(record.subscription, record.plan, paidPeriods(record), h.clock.now())
      .status;
  };

  it('refuses terms that differ from the subscription, or signed by another wallet', async () => {
    const { token, terms, signature } = await subscribe({ amount: '10', currency: 'USDC', trialDays: '1' });
    const refusal = async (body: unknown) => {
      try {
        await submitMandate(mandateDeps, token, body);
        return 'accepted';
      } catch (error) {
        return (error as { details?: { field: string }[] }).details?.map((d) => d.field).join(',');
      }
    };
    const json = termsJson(terms);
    expect(await refusal({ terms: { ...json, merchant: h.addresses.relayer }, signature })).toBe(
      'terms.merchant',
    );
    expect(await refusal({ terms: { ...json, feeBps: 0 }, signature })).toBe('terms.feeBps');
    expect(await refusal({ terms: { ...json, cap: '10000001' }, signature })).toBe('terms.cap');
    expect(await refusal({ terms: { ...json, periodMonths: 2 }, signature })).toBe('terms.periodMonths');
    const stranger = await h.anvil
      .wallet(ROLES.merchant)
      .signTypedData(mandateTypedData(mandateDomain(chain.chainId, chain.charger), terms));
    expect(await refusal({ terms: json, signature: stranger })).toBe('signature');
    expect(await refusal({ terms: json, signature: '0x12' })).toBe('signature');
    await expect(submitMandate(mandateDeps, 'x'.repeat(43), { terms: json, signature })).rejects.toThrow(
      /Subscription not found/,
    );
    expect(await refusal({ terms: json, signature })).toBe('accepted');
    const id = (await h.stores.subscriptions.findByPortalToken(token))!.subscription.id;
    expect((await mandates.findMandate(id))?.status).toBe('active');
    await cancel(id);
    await expect(mandateRequest(mandateDeps, token)).rejects.toThrow(/canceled/);
  });

  it("takes the mandate over the checkout's public routes, by the customer token alone", async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    const asked = await fetch(`${base}/subscriptions/${token}/mandate.json`);
    expect(asked.status).toBe(200);
    const typed = (await asked.json()) as Record<string, Record<string, unknown>>;
    expect(typed.primary_type).toBe('Terms');
    expect(typed.domain).toEqual({
      name: 'Paylink SubscriptionCharger',
      version: '1',
      chainId: chain.chainId,
      verifyingContract: chain.charger,
    });
    expect(typed.message?.cap).toBe('10000000');
    expect(typed.spender).toBe(chain.charger);
    const post = (body: unknown, path = token) =>
      fetch(`${base}/subscriptions/${path}/mandate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const wrong = await post({ terms: { ...termsJson(terms), treasury: h.addresses.merchant }, signature });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'terms.treasury' }],
    });
    // The subscription's id is no token.
    expect((await post({ terms: termsJson(terms), signature }, id)).status).toBe(404);
    const taken = await post({ terms: termsJson(terms), signature });
    expect(taken.status).toBe(201);
    expect(await taken.json()).toMatchObject({
      status: 'active',
      customer: h.addresses.customer,
      permit: false,
    });
    await cancel(id);
  });

  it('charges three monthly periods when due, each once, merchant and treasury exact', async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    await submitMandate(mandateDeps, token, { terms: termsJson(terms), signature });
    const anchor = (await h.stores.subscriptions.find(id))!.subscription.anchor;
    const before = {
      merchant: await h.balanceOf(h.addresses.merchant),
      treasury: await h.balanceOf(h.addresses.treasury),
    };
    for (const period of [1, 2, 3]) {
      const due = periodStart(anchor, { unit: 'month', count: 1 }, period);
      // A minute before it is due: its payment is made, neither charged nor e-mailed.
      await moveTo(new Date(due.getTime() - 60_000));
      await renewDueSubscriptions(renewal, 50);
      const billed = await periodOf(id, period);
      expect(billed.payment?.status).toBe('pending');
      // The first period was billed at the subscription's creation, before the mandate: e-mailed as push.
      expect(await emailsOf(billed.payment?.id)).toBe(period === 1 ? 1 : 0);
      expect(await mandates.findCharge(id, period)).toBeUndefined();
      expect((await relayChargeOnce(relay)).kind).toBe('idle');

      await moveTo(due);
      // Two workers look at once: one charge.
      await Promise.all([renewDueSubscriptions(renewal, 50), renewDueSubscriptions(renewal, 50)]);
      expect((await relayChargeOnce(relay)).kind).toBe('sent');
      await minedOnChain(id, period);
      expect((await relayChargeOnce(relay)).kind).toBe('mined');
      expect((await relayChargeOnce(relay)).kind).toBe('idle');
      const { payment, p } = await periodOf(id, period);
      const charge = await mandates.findCharge(id, period);
      expect(payment?.status).toBe('paid');
      expect(payment?.txid).toBe(charge?.txHash);
      expect(p?.remindedAt).toBeNull();
      expect(await statusOf(id)).toBe('active');
      expect(await h.balanceOf(h.addresses.merchant)).toBe(before.merchant + BigInt(period) * 9_750_000n);
      expect(await h.balanceOf(h.addresses.treasury)).toBe(before.treasury + BigInt(period) * 250_000n);
    }
    const paidEvents = await h.database.handle.db
      .selectFrom('events')
      .select('payload')
      .where('type', '=', 'payment.paid')
      .execute();
    const charged = paidEvents.filter((e) => e.payload.includes('subscription_charge'));
    expect(charged.length).toBe(3);
    await cancel(id);
  });

  it('fails a refused charge, e-mails its link, retries on schedule and is paid once within the grace', async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    await mandateDue(id, token, terms, signature);
    await h.control('blacklist', h.addresses.customer as Address);
    const failed = await relayChargeOnce(relay);
    expect(failed.kind).toBe('failed');
    expect(failed.kind === 'failed' && failed.reason).toMatch(/Blacklistable: account is blacklisted/);
    const first = await periodOf(id, 1);
    expect(first.p?.remindedAt).not.toBeNull();
    expect(await emailsOf(first.payment?.id)).toBe(2); // at the creation, then the push fallback
    expect(await statusOf(id)).toBe('past_due');
    const charge = (await mandates.findCharge(id, 1))!;
    expect(charge.nextAttemptAt?.getTime()).toBe(h.clock.now().getTime() + 3_600_000);
    // Not before its next attempt, though unblocked meanwhile.
    await h.control('unBlacklist', h.addresses.customer as Address);
    await moveTo(new Date(h.clock.now().getTime() + 3_600_000 - 1));
    expect((await relayChargeOnce(relay)).kind).toBe('idle');
    await moveTo(new Date(h.clock.now().getTime() + 1));
    const merchantBefore = await h.balanceOf(h.addresses.merchant);

    // A crash between the broadcast and the next pass: the charge was recorded sent before it went out.
    const crashing: RelayChargesDeps = {
      ...relay,
      relayer: {
        ...relay.relayer,
        broadcast: async (raw) => {
          await relay.relayer.broadcast(raw);
          throw new Error('the worker died here');
        },
      },
    };
    await expect(relayChargeOnce(crashing)).rejects.toThrow(/died/);
    await minedOnChain(id, 1);
    expect((await mandates.findCharge(id, 1))?.status).toBe('sent');
    expect((await relayChargeOnce(relay)).kind).toBe('mined');
    expect((await relayChargeOnce(relay)).kind).toBe('idle');
    expect(await h.balanceOf(h.addresses.merchant)).toBe(merchantBefore + 9_750_000n);
    expect((await periodOf(id, 1)).payment?.status).toBe('paid');
    expect(await statusOf(id)).toBe('active');
    await cancel(id);
  });

  it("sends no charge while its period's link, e-mailed as the fallback, is paid by a transfer not final yet", async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    await mandateDue(id, token, terms, signature);
    // The first attempt refused (a blacklist): the period's link e-mailed as the fallback.
    await h.control('blacklist', h.addresses.customer as Address);
    expect((await relayChargeOnce(relay)).kind).toBe('failed');
    await h.control('unBlacklist', h.addresses.customer as Address);
    const { payment, p } = await periodOf(id, 1);
    expect(p?.remindedAt).not.toBeNull();
    const mailed = await emailsOf(payment?.id);
    // The customer pays the link themselves; the watcher sees the transfer, not final yet: the payment is unpaid.
    await h.pay(payment!.deposit!.depositAddress, 10_000_000n);
    await h.poll();
    expect((await periodOf(id, 1)).payment?.status).not.toBe('paid');
    const customerAfterPaying = await h.balanceOf(h.addresses.customer);
    await moveTo(new Date(h.clock.now().getTime() + 3_600_000));
    const held = await relayChargeOnce(relay);
    expect(held).toMatchObject({
      kind: 'deferred',
      reason: "a transfer to its period's deposit address is seen, not final yet",
    });
    expect(await mandates.findCharge(id, 1)).toMatchObject({ status: 'pending', txHash: null, attempts: 1 });
    // Once final the payment is paid by hand, and the charge is closed without ever being sent.
    await h.finalizeAll();
    await h.poll();
    expect((await periodOf(id, 1)).payment?.status).toBe('paid');
    await moveTo(new Date(h.clock.now().getTime() + 10 * 60_000));
    const closed = await relayChargeOnce(relay);
    expect(closed.kind === 'failed' && closed.reason).toBe('the period was paid otherwise');
    expect((await mandates.findCharge(id, 1))?.txHash).toBeNull();
    expect(await h.balanceOf(h.addresses.customer)).toBe(customerAfterPaying);
    expect(await emailsOf(payment?.id)).toBe(mailed);
    await cancel(id);
  });

  it('never charges a period paid in part by hand: the rest is its link’s, with no second e-mail', async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    await mandateDue(id, token, terms, signature);
    const { payment } = await periodOf(id, 1);
    const mailed = await emailsOf(payment?.id);
    await h.pay(payment!.deposit!.depositAddress, 4_000_000n);
    await h.finalizeAll();
    await h.poll();
    expect((await periodOf(id, 1)).payment?.status).not.toBe('paid');
    const refused = await relayChargeOnce(relay);
    expect(refused.kind === 'failed' && refused.reason).toBe(
      "its period was paid in part by hand: the rest is its link's",
    );
    expect(await mandates.findCharge(id, 1)).toMatchObject({ txHash: null, nextAttemptAt: null });
    expect(await emailsOf(payment?.id)).toBe(mailed);
    await cancel(id);
  });

  it('sends a charge reorged out before its receipt was read again, and it is made once', async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    await mandateDue(id, token, terms, signature);
    const merchantBefore = await h.balanceOf(h.addresses.merchant);
    const beforeCharge = await h.anvil.testClient.snapshot();
    expect((await relayChargeOnce(relay)).kind).toBe('sent');
    await minedOnChain(id, 1);
    // The block that held it is gone (a reorg), with the relayer's nonce back where it was.
    await h.anvil.testClient.revert({ id: beforeCharge });
    expect(await h.balanceOf(h.addresses.merchant)).toBe(merchantBefore);
    expect((await relayChargeOnce(relay)).kind).toBe('awaiting-receipt'); // the same bytes again
    await minedOnChain(id, 1);
    expect((await relayChargeOnce(relay)).kind).toBe('mined');
    expect((await relayChargeOnce(relay)).kind).toBe('idle');
    expect(await h.balanceOf(h.addresses.merchant)).toBe(merchantBefore + 9_750_000n);
    expect((await mandates.findCharge(id, 1))?.attempts).toBe(1);
    await cancel(id);
  });

  /** The `payment.paid` events written for a payment. */
  const paidEventsOf = async (paymentId: string | undefined) =>
    (
      await h.database.handle.db
        .selectFrom('events')
        .select('id')
        .where('type', '=', 'payment.paid')
        .where('payment_id', '=', paymentId ?? '')
        .execute()
    ).length;
  const finalizedBlock = async () => (await h.anvil.publicClient.getBlock({ blockTag: 'finalized' })).number;

  it('applies a mined charge once its block is final, not one block before: merchant and treasury exact', async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    await mandateDue(id, token, terms, signature);
    const before = {
      merchant: await h.balanceOf(h.addresses.merchant),
      treasury: await h.balanceOf(h.addresses.treasury),
    };
    expect((await relayChargeOnce(relay)).kind).toBe('sent');
    const hash = (await mandates.findCharge(id, 1))?.txHash as Hex;
    const { blockNumber } = await h.anvil.publicClient.waitForTransactionReceipt({ hash });
    // One block on, its block is one short of final: mined, the money moved, nothing applied.
    await h.anvil.testClient.mine({ blocks: 1 });
    expect(await finalizedBlock()).toBe(blockNumber - 1n);
    expect(await relayChargeOnce(relay)).toMatchObject({ kind: 'awaiting-finality', blockNumber });
    const unapplied = await periodOf(id, 1);
    expect((await mandates.findCharge(id, 1))?.status).toBe('sent');
    expect(unapplied.payment?.status).toBe('pending');
    expect(await paidEventsOf(unapplied.payment?.id)).toBe(0);
    // The relayer's key sends nothing else meanwhile: the charge is still its transaction in flight.
    expect((await mandates.inFlight(chain.chainId))?.txHash).toBe(hash);

    await h.anvil.testClient.mine({ blocks: 1 });
    expect(await finalizedBlock()).toBe(blockNumber);
    expect((await relayChargeOnce(relay)).kind).toBe('mined');
    expect((await relayChargeOnce(relay)).kind).toBe('idle');
    const { payment } = await periodOf(id, 1);
    expect(payment?.status).toBe('paid');
    expect(payment?.txid).toBe(hash);
    expect(await paidEventsOf(payment?.id)).toBe(1);
    expect(await statusOf(id)).toBe('active');
    expect(await h.balanceOf(h.addresses.merchant)).toBe(before.merchant + 9_750_000n);
    expect(await h.balanceOf(h.addresses.treasury)).toBe(before.treasury + 250_000n);
    await cancel(id);
  });

  it('never applies a charge reorged out after mining, before final: sent again, one charge in the end', async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    await mandateDue(id, token, terms, signature);
    const before = {
      merchant: await h.balanceOf(h.addresses.merchant),
      treasury: await h.balanceOf(h.addresses.treasury),
    };
    expect((await relayChargeOnce(relay)).kind).toBe('sent');
    const hash = (await mandates.findCharge(id, 1))?.txHash as Hex;
    const { blockNumber } = await h.anvil.publicClient.waitForTransactionReceipt({ hash });
    await h.anvil.testClient.mine({ blocks: 1 });
    expect((await relayChargeOnce(relay)).kind).toBe('awaiting-finality');
    // A reorg replaces the charge's block and the one above with two blocks without it, before it was final.
    await h.anvil.testClient.request({ method: 'anvil_reorg', params: [2, []] } as never);
    expect(await finalizedBlock()).toBe(blockNumber - 1n);
    expect(await h.balanceOf(h.addresses.merchant)).toBe(before.merchant);
    const gone = await periodOf(id, 1);
    expect(gone.payment?.status).toBe('pending');
    expect(await paidEventsOf(gone.payment?.id)).toBe(0);
    // Its receipt is gone and its nonce free again: the same bytes are sent again.
    expect((await relayChargeOnce(relay)).kind).toBe('awaiting-receipt');
    await minedOnChain(id, 1);
    expect((await relayChargeOnce(relay)).kind).toBe('mined');
    expect((await relayChargeOnce(relay)).kind).toBe('idle');
    const { payment } = await periodOf(id, 1);
    const charge = await mandates.findCharge(id, 1);
    expect(payment?.status).toBe('paid');
    expect(payment?.txid).toBe(charge?.txHash);
    expect(charge?.attempts).toBe(1);
    expect(await paidEventsOf(payment?.id)).toBe(1);
    expect(await h.balanceOf(h.addresses.merchant)).toBe(before.merchant + 9_750_000n);
    expect(await h.balanceOf(h.addresses.treasury)).toBe(before.treasury + 250_000n);
    await cancel(id);
  });

  it('ends the mandate when the customer cancels it on chain, and charges no period paid otherwise', async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    const anchor = await mandateDue(id, token, terms, signature);
    // Period 1 paid by hand (as the watcher would store it) before the relayer's pass: no charge, no e-mail.
    const first = await periodOf(id, 1);
    await h.database.handle.db
      .updateTable('payments')
      .set({ status: 'paid', paid_at: h.clock.now().toISOString(), amount_received_base_units: '10000000' })
      .where('id', '=', first.payment!.id)
      .execute();
    const stale = await relayChargeOnce(relay);
    expect(stale.kind === 'failed' && stale.reason).toBe('the period was paid otherwise');
    expect(await emailsOf(first.payment?.id)).toBe(1); // only at the creation, before the mandate
    expect((await periodOf(id, 1)).p?.remindedAt).toBeNull();

    const cancelOnChain = await h.anvil.wallet(ROLES.customer).writeContract({
      address: chain.charger as Address,
      abi: subscriptionChargerAbi,
      functionName: 'cancel',
      args: [terms],
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: cancelOnChain });
    await moveTo(periodStart(anchor, { unit: 'month', count: 1 }, 2));
    await renewDueSubscriptions(renewal, 50);
    const refused = await relayChargeOnce(relay);
    expect(refused.kind === 'failed' && refused.reason).toMatch(/MandateCanceled/);
    expect((await mandates.findMandate(id))?.status).toBe('canceled');
    expect((await mandates.findCharge(id, 2))?.nextAttemptAt).toBeNull();
    const second = await periodOf(id, 2);
    expect(await emailsOf(second.payment?.id)).toBe(1); // its link, as push, not before the refusal
    // The next look bills and e-mails as push: no mandate is live.
    expect(await renewal.pull?.hasLiveMandate(id)).toBe(false);
    await cancel(id);
  });

  /** A gasless transfer the key relayed at `at` for `feeWei`, as the gasless relayer records one it finished. */
  const gaslessSpent = async (paymentId: string, feeWei: bigint, at: Date) => {
    const id = `gas_budget_${feeWei}_${at.getTime()}`;
    const nonce = `0x${at.getTime().toString(16).padStart(64, '0')}`;
    await gasless.insert({
      id,
      paymentId,
      chainId: chain.chainId,
      tokenAddress: h.usdc.toLowerCase(),
      from: h.addresses.merchant.toLowerCase(),
      to: h.addresses.treasury.toLowerCase(),
      valueBaseUnits: 1n,
      validAfter: 0n,
      validBefore: 2n ** 40n,
      nonce,
      signature: '0x',
      clientAddress: '203.0.113.9',
      status: 'pending',
      txHash: null,
      rawTx: null,
      relayerNonce: null,
      gasUsed: null,
      feeWei: null,
      failureReason: null,
      createdAt: at,
      finishedAt: null,
    });
    await gasless.finish(id, { status: 'mined', gasUsed: 21_000n, feeWei }, at);
  };
  /** The relayer's charges held to an hourly budget of `capWei`, as the relayer's loop holds them. */
  const inBudget = (capWei: bigint) => chargesInBudget({ gasless, charges: relay }, capWei)!;

  it("counts charges in the relayer key's hourly gas budget: the second in the hour waits, unfailed, unmailed", async () => {
    const a = await subscribe({ amount: '10', currency: 'USDC', trialDays: '1' });
    const b = await subscribe({ amount: '10', currency: 'USDC', trialDays: '1' });
    await submitMandate(mandateDeps, b.token, { terms: termsJson(b.terms), signature: b.signature });
    await mandateDue(a.id, a.token, a.terms, a.signature);
    // Nothing spent in the hour: a budget of one wei lets one charge go, whatever it costs.
    const first = await relayChargeOnce(inBudget(1n));
    expect(first.kind).toBe('sent');
    const charged = first.kind === 'sent' ? first.charge.subscriptionId : '';
    const waiting = charged === a.id ? b.id : a.id;
    await minedOnChain(charged, 1);
    expect((await relayChargeOnce(inBudget(1n))).kind).toBe('mined');
    const minedAt = h.clock.now();
    const fee = (await mandates.findCharge(charged, 1))!.feeWei!;
    expect(fee).toBeGreaterThan(0n);
    // The gasless transfers see it too: the key's spend in the hour is the charge's fee.
    const spend = await inBudget(1n).budget!.spendSince(new Date(minedAt.getTime() - 3_600_000));
    expect(spend.map((one) => [one.client, one.feeWei])).toEqual([[`subscriptions:${h.merchant.id}`, fee]]);

    // Below the cap but its merchant's charges spent their tenth of it (as an x402 merchant's calls): it waits.
    expect(await relayChargeOnce(inBudget(fee * 2n))).toMatchObject({ kind: 'share-spent', spentWei: fee });
    const capped = await relayChargeOnce(inBudget(1n));
    expect(capped).toMatchObject({ kind: 'capped', spentWei: fee, charge: { subscriptionId: waiting } });
    // Without a cap it would go: the budget alone holds it. Waiting is not failing: no attempt, no e-mail.
    const held = (await periodOf(waiting, 1)).payment!;
    const mailed = await emailsOf(held.id);
    expect(await mandates.findCharge(waiting, 1)).toMatchObject({ status: 'pending', attempts: 0 });
    // An hour after the charge was mined, it still counts (the gasless path's window); a moment later, not.
    await moveTo(new Date(minedAt.getTime() + 3_600_000));
    expect((await relayChargeOnce(inBudget(1n))).kind).toBe('capped');
    expect(await emailsOf(held.id)).toBe(mailed);
    expect((await periodOf(waiting, 1)).p?.remindedAt).toBeNull();
    await moveTo(new Date(minedAt.getTime() + 3_600_001));
    expect((await relayChargeOnce(inBudget(1n))).kind).toBe('sent');
    await minedOnChain(waiting, 1);
    expect((await relayChargeOnce(inBudget(1n))).kind).toBe('mined');
    expect((await periodOf(waiting, 1)).payment?.status).toBe('paid');
    expect(await emailsOf(held.id)).toBe(mailed);
    await cancel(a.id);
    await cancel(b.id);
  });

  it('holds a charge at the budget exactly as a gasless transfer is: spent one wei below it goes, spent at it waits', async () => {
    const { id, token, terms, signature } = await subscribe({
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
    });
    await mandateDue(id, token, terms, signature);
    // The key's gasless transfers spent 5,000 wei this hour.
    await gaslessSpent((await periodOf(id, 1)).payment!.id, 5_000n, h.clock.now());
    expect(await relayChargeOnce(inBudget(5_000n))).toMatchObject({ kind: 'capped', spentWei: 5_000n });
    expect((await mandates.findCharge(id, 1))?.status).toBe('pending');
    expect((await relayChargeOnce(inBudget(5_001n))).kind).toBe('sent');
    await minedOnChain(id, 1);
    expect((await relayChargeOnce(inBudget(5_001n))).kind).toBe('mined');
    await cancel(id);
  });

  /** A wallet that never approved the charger, with 100 USDC, and its EIP-2612 permit of the charger for `value`. */
  const permitOf = async (payer: number, value: bigint, deadline: bigint) => {
    const owner = h.anvil.addresses[payer]!;
    const mint = await h.anvil.wallet(ROLES.relayer).writeContract({
      address: h.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [owner, 100_000_000n],
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: mint });
    return h.anvil.wallet(payer).signTypedData({
      domain: { name: 'USD Coin (sandbox)', version: '2', chainId: chain.chainId, verifyingContract: h.usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner, spender: chain.charger as Address, value, nonce: 0n, deadline },
    });
  };
  const allowanceOf = (owner: string) =>
    h.anvil.publicClient.readContract({
      address: h.usdc,
      abi: testUsdcAbi,
      functionName: 'allowance',
      args: [owner as Address, chain.charger as Address],
    });
  /** Charges the subscription's period when due: the clocks at its start, one look, the charge sent and mined. */
  const chargePeriod = async (id: string, anchor: Date, period: number) => {
    await moveTo(periodStart(anchor, { unit: 'month', count: 1 }, period));
    await renewDueSubscriptions(renewal, 50);
    expect((await relayChargeOnce(relay)).kind).toBe('sent');
    await minedOnChain(id, period);
    expect((await relayChargeOnce(relay)).kind).toBe('mined');
    expect((await periodOf(id, period)).payment?.status).toBe('paid');
  };

  it("charges an open-ended plan's periods from its page's one permit, and tops the allowance up from the portal", async () => {
    const payer = 4;
    const owner = h.anvil.addresses[payer]!;
    const { id, token, terms, signature } = await subscribe(
      { amount: '10', currency: 'USDC', trialDays: '1', periods: undefined },
      undefined,
      payer,
    );
    const { plan, subscription } = (await h.stores.subscriptions.find(id))!;
    expect(plan.periods).toBeNull();
    // What the subscribe page has the wallet sign for a plan that runs until canceled: 12 periods' cap.
    const value = permitTotal(plan).minorUnits;
    expect(value).toBe(120_000_000n);
    const deadline = BigInt(Math.ceil(subscription.anchor.getTime() / 1000)) + 400n * 86_400n;
    const permit = await permitOf(payer, value, deadline);
    await submitMandate(mandateDeps, token, {
      terms: termsJson(terms),
      signature,
      permit: { value: value.toString(), deadline: deadline.toString(), signature: permit },
    });
    await chargePeriod(id, subscription.anchor, 1);
    await chargePeriod(id, subscription.anchor, 2);
    expect(await allowanceOf(owner)).toBe(100_000_000n);

    // The portal shows what is left, read from the chain; enough for the next period: nothing to top up.
    const portal = async () => (await fetch(`${base}/subscriptions/${token}?lang=en`)).text();
    const plenty = await portal();
    expect(plenty).toMatch(/Allowance left<\/dt><dd data-allowance-left>100\.00 USDC/);
    expect(plenty).not.toContain('data-top-up');
    // The customer lowered it below a period (an approve of their own): the portal offers 12 more periods.
    const lower = await h.anvil.wallet(payer).writeContract({
      address: h.usdc,
      abi: testUsdcAbi,
      functionName: 'approve',
      args: [chain.charger as Address, 4_000_000n],
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: lower });
    const short = await portal();
    expect(short).toContain('data-allowance-left>4.00 USDC');
    expect(short).toContain('Allow 12 more periods');
    const approveData = /data-approve-data="(0x[0-9a-f]+)"/.exec(short)?.[1] as Hex;
    expect(/data-token="(0x[0-9a-fA-F]{40})"/.exec(short)?.[1]?.toLowerCase()).toBe(h.usdc.toLowerCase());
    // What the page's script has the wallet send.
    const topUp = await h.anvil.wallet(payer).sendTransaction({ to: h.usdc, data: approveData });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: topUp });
    expect(await allowanceOf(owner)).toBe(120_000_000n);
    const after = await portal();
    expect(after).toContain('data-allowance-left>120.00 USDC');
    expect(after).not.toContain('data-top-up');
    await chargePeriod(id, subscription.anchor, 3);
    expect(await allowanceOf(owner)).toBe(110_000_000n);
    await cancel(id);
  });

  it("grants the allowance with the customer's permit, sent with the first charge: no gas, no approve", async () => {
    const payer = 3; // a wallet that never approved the charger
    const payerAddress = h.anvil.addresses[payer]!;
    const { id, token, terms, signature } = await subscribe(
      { amount: '10', currency: 'USDC', trialDays: '1' },
      undefined,
      payer,
    );
    const anchor = (await h.stores.subscriptions.find(id))!.subscription.anchor;
    const deadline = BigInt(Math.ceil(anchor.getTime() / 1000)) + 7n * 86_400n;
    const permit = await permitOf(payer, 30_000_000n, deadline);
    await expect(
      submitMandate(mandateDeps, token, {
        terms: termsJson(terms),
        signature,
        permit: { value: '9999999', deadline: deadline.toString(), signature: permit },
      }),
    ).rejects.toThrow(/permit.value/);
    await submitMandate(mandateDeps, token, {
      terms: termsJson(terms),
      signature,
      permit: { value: '30000000', deadline: deadline.toString(), signature: permit },
    });
    const sentBefore = await h.anvil.publicClient.getTransactionCount({ address: payerAddress });
    await moveTo(anchor);
    await renewDueSubscriptions(renewal, 50);
    expect((await relayChargeOnce(relay)).kind).toBe('sent');
    await minedOnChain(id, 1);
    expect((await relayChargeOnce(relay)).kind).toBe('mined');
    expect((await periodOf(id, 1)).payment?.status).toBe('paid');
    expect(await h.balanceOf(payerAddress)).toBe(90_000_000n);
    expect(await allowanceOf(payerAddress)).toBe(20_000_000n);
    // The customer sent nothing themselves.
    expect(await h.anvil.publicClient.getTransactionCount({ address: payerAddress })).toBe(sentBefore);
    await cancel(id);
  });

  it('never charges a fiat period above the signed cap: its link is e-mailed instead', async () => {
    // 10 EUR at 1.08 is 10.80 USDC; the customer's ceiling is 10.
    const { id, token, terms, signature } = await subscribe(
      { amount: '10', currency: 'EUR', trialDays: '1' },
      10_000_000n,
    );
    // The ceiling's bound is the charger's (below 2^128): at it the cap is refused, one below it goes on to the
    // signature (of other terms here).
    const capRefusal = (cap: bigint) =>
      submitMandate(mandateDeps, token, { terms: termsJson({ ...terms, cap }), signature }).catch(
        (error: { details?: { field: string }[] }) => error.details?.map((d) => d.field).join(','),
      );
    expect(await capRefusal(2n ** 128n)).toBe('terms.cap');
    expect(await capRefusal(2n ** 128n - 1n)).toBe('signature');
    await mandateDue(id, token, terms, signature);
    const { payment, p } = await periodOf(id, 1);
    expect(payment?.quote.usdcBaseUnits).toBe(10_800_000n);
    expect(await mandates.findCharge(id, 1)).toBeUndefined();
    expect(p?.remindedAt).not.toBeNull();
    expect(await emailsOf(payment?.id)).toBe(2);
    expect((await relayChargeOnce(relay)).kind).toBe('idle');
  });

  it("charges each fiat period at its own rate within the page's cap, and e-mails the one the rate moves above it", async () => {
    // The page's cap for 10 EUR at 1.08: 10.80 USDC and 10 %, rounded up to the cent.
    const { id, token, terms, signature } = await subscribe(
      { amount: '10', currency: 'EUR', trialDays: '1' },
      11_880_000n,
    );
    expect(await proposedCap(renewal, (await h.stores.subscriptions.find(id))!.plan)).toBe(11_880_000n);
    let eur = { units: 108n, scale: 2 };
    const moving: RenewalDeps = {
      ...renewal,
      rates: { usdcPerUnit: () => ({ usdcPerUnit: eur, sources: ['test'], observedAt: h.clock.now() }) },
    };
    const anchor = await mandateDue(id, token, terms, signature);
    const before = {
      merchant: await h.balanceOf(h.addresses.merchant),
      treasury: await h.balanceOf(h.addresses.treasury),
    };
    const charged = { merchant: 0n, treasury: 0n };
    // Period 1 at 1.08 (10.80 USDC), period 2 at 1.10 (11.00), each charged at its own quote, split at 2.5 %.
    for (const [period, rate, usdc] of [
      [1, 108n, 10_800_000n],
      [2, 110n, 11_000_000n],
    ] as const) {
      if (period > 1) {
        eur = { units: rate, scale: 2 };
        const due = periodStart(anchor, { unit: 'month', count: 1 }, period);
        await moveTo(new Date(due.getTime() - 60_000));
        await renewDueSubscriptions(moving, 50);
        await moveTo(due);
        await renewDueSubscriptions(moving, 50);
      }
      expect((await mandates.findCharge(id, period))?.amountBaseUnits).toBe(usdc);
      expect((await relayChargeOnce(relay)).kind).toBe('sent');
      await minedOnChain(id, period);
      expect((await relayChargeOnce(relay)).kind).toBe('mined');
      expect((await periodOf(id, period)).payment?.status).toBe('paid');
      charged.treasury += (usdc * 250n) / 10_000n;
      charged.merchant += usdc - (usdc * 250n) / 10_000n;
      expect(await h.balanceOf(h.addresses.merchant)).toBe(before.merchant + charged.merchant);
      expect(await h.balanceOf(h.addresses.treasury)).toBe(before.treasury + charged.treasury);
    }
    expect(charged).toEqual({ merchant: 21_255_000n, treasury: 545_000n });
    // Period 3 at 1.20: 12.00 USDC, above the 11.88 signed: not charged, its link e-mailed instead.
    eur = { units: 120n, scale: 2 };
    const due = periodStart(anchor, { unit: 'month', count: 1 }, 3);
    await moveTo(new Date(due.getTime() - 60_000));
    await renewDueSubscriptions(moving, 50);
    await moveTo(due);
    await renewDueSubscriptions(moving, 50);
    const third = await periodOf(id, 3);
    expect(third.payment?.quote.usdcBaseUnits).toBe(12_000_000n);
    expect(await mandates.findCharge(id, 3)).toBeUndefined();
    expect(third.p?.remindedAt).not.toBeNull();
    expect(await emailsOf(third.payment?.id)).toBe(1);
    expect((await relayChargeOnce(relay)).kind).toBe('idle');
    expect(await h.balanceOf(h.addresses.merchant)).toBe(before.merchant + charged.merchant);
    await cancel(id);
  });

  it("subscribed by the page's wallet way, a first period owed at once is not e-mailed: its mandate will pay it", async () => {
    const { plan } = await createPlan(renewal, h.merchant.id, 'live', {
      name: 'No trial',
      amount: '5',
      currency: 'USDC',
      intervalUnit: 'month',
      trialDays: '0',
    });
    const byWallet = await subscribeFromPage(renewal, plan.id, {
      customerEmail: 'ada@example.com',
      language: 'en',
      customerWallet: h.addresses.customer,
    });
    const byEmail = await subscribeFromPage(renewal, plan.id, {
      customerEmail: 'bob@example.com',
      language: 'en',
    });
    const walletPeriod = await periodOf(byWallet.subscription.id, 1);
    const emailPeriod = await periodOf(byEmail.subscription.id, 1);
    // Both owe their first period now, with its payment made; only the e-mail way's link went out.
    expect(walletPeriod.payment?.status).toBe('pending');
    expect(emailPeriod.payment?.status).toBe('pending');
    expect(await emailsOf(walletPeriod.payment?.id)).toBe(0);
    expect(await emailsOf(emailPeriod.payment?.id)).toBe(1);
    await cancel(byWallet.subscription.id);
    await cancel(byEmail.subscription.id);
  });
});
