import type { FastifyInstance } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { subscriptionChargerAbi, testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { cancelCallData, chargerLogReader } from '../../src/adapters/chain/subscriptionCharger.ts';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { SESSION_COOKIE } from '../../src/adapters/dashboard/pageKit.ts';
import { customerEmails } from '../../src/adapters/email/customerEmails.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { createUser } from '../../src/app/dashboard/users.ts';
import { type ChainCancelDeps, readChainCancelsOnce } from '../../src/app/subscriptions/chainCancels.ts';
import { submitMandate } from '../../src/app/subscriptions/mandates.ts';
import { createPlan } from '../../src/app/subscriptions/plans.ts';
import { type RelayChargesDeps, relayChargeOnce } from '../../src/app/subscriptions/relayCharges.ts';
import { type RenewalDeps, renewDueSubscriptions } from '../../src/app/subscriptions/renewal.ts';
import { createSubscription } from '../../src/app/subscriptions/subscriptions.ts';
import { loadConfig } from '../../src/config/index.ts';
import { termsJson } from '../../src/domain/subscriptionMandate.ts';
import { periodStart } from '../../src/domain/subscriptionPeriods.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ApiHarness, payLinkDeps, startApiHarness } from '../helpers/apiHarness.ts';
import { expectCleanScreen, SCREENSHOTS, UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { type ChainHarness, ROLES, startChainHarness } from '../helpers/chainHarness.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { freePort } from '../helpers/net.ts';
import { type PullScene, startPullScene } from '../helpers/pullScene.ts';
import { walletContext as openWalletContext } from '../helpers/testWallet.ts';

// Code run in the page by `page.evaluate`: the test's tsconfig has no DOM library.
declare const window: unknown;

const PASSWORD = 'correct horse battery staple';
const WIDTHS = [1280, 390] as const;
const chromium = useChromium();

/** Axe and no sideways scroll at a desk's and a phone's width, a screenshot of each. */
const clean = async (page: Page, name: string) => {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await expectCleanScreen(page, name, `${SCREENSHOTS}/subscriptions-${name}-${width}.png`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
};

/**
 * Subscriptions' pages in Chromium (decision 0062), one server pair and one browser for the file: the merchant
 * makes a plan on the dashboard and opens its subscribe page; a customer subscribes there by e-mail, lands in the
 * portal and cancels at period end; the merchant sees the subscription (status, next charge, its payment) and
 * cancels it at once; the operator's console lists it while it runs. Every screen under its CSP, checked with
 * axe and for sideways scrolling at a desk's and a phone's width. One database: the pages are the point.
 */
describe('subscription pages in Chromium', () => {
  let h: ApiHarness;
  let api: string;
  let checkoutBase: string;
  let checkout: FastifyInstance;
  let merchant: BrowserContext;
  let operator: BrowserContext;
  let customer: BrowserContext;

  beforeAll(async () => {
    const [apiPort, checkoutPort] = [await freePort(), await freePort()];
    api = `http://127.0.0.1:${apiPort}`;
    checkoutBase = `http://127.0.0.1:${checkoutPort}`;
    h = await startApiHarness('sqlite', {
      env: { PAYLINK_BASE_URL: api, PAYLINK_CHECKOUT_URL: checkoutBase },
      overrides: { passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }) },
    });
    await h.app.listen({ host: '127.0.0.1', port: apiPort });
    const merchantId = (await h.merchant({ name: 'Corner Café' })).id;
    const config = loadConfig({
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_CHECKOUT_URL: checkoutBase,
    });
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: { name: 'Sandbox (local anvil)', chainId: 31337, explorerUrl: '' },
      subscriptionPages: {
        renewal: {
          ...payLinkDeps(h),
          subscriptions: h.stores.subscriptions,
          merchants: h.stores.merchants,
          paymentRequests: customerEmails(config, () => undefined)?.paymentRequests,
          renewalLeadMs: 3 * 86_400_000,
          renewalRecheckMs: 60_000,
        },
        buckets: memoryBucketStore(),
        receiptTokens: h.stores.receiptTokens,
        checkoutUrl: checkoutBase,
      },
    });
    await checkout.listen({ host: '127.0.0.1', port: checkoutPort });
    merchant = await signedIn('owner@corner.example', { role: 'merchant', merchantId });
    operator = await signedIn('ops@paylink.example', { role: 'operator' });
    customer = await chromium.browser.newContext({ locale: 'en-GB', timezoneId: 'UTC' });
  });
  afterAll(async () => {
    await Promise.all([merchant?.close(), operator?.close(), customer?.close()]);
    await checkout?.close();
    await h?.close();
  });

  /** A browser context signed in to the dashboard as a new user of that role. */
  async function signedIn(
    email: string,
    role: { role: 'merchant'; merchantId: string } | { role: 'operator' },
  ) {
    const form = (url: string, fields: Record<string, string>) =>
      h.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: api },
        payload: new URLSearchParams(fields).toString(),
      });
    const { token } = await createUser(
      { users: h.stores.users, merchants: h.stores.merchants, clock: h.clock },
      { email, ...role },
    );
    await form('/dashboard/set-password', { token, password: PASSWORD });
    h.clock.advance(5 * 60_000);
    const answer = await form('/dashboard/login', { email, password: PASSWORD });
    const cookie = answer.cookies.find((c) => c.name === SESSION_COOKIE);
    if (!cookie) throw new Error(`sign-in answered ${answer.statusCode}`);
    const context = await chromium.browser.newContext({ locale: 'en-GB', timezoneId: 'UTC' });
    await context.addCookies([{ name: cookie.name, value: cookie.value, url: `${api}/dashboard` }]);
    return context;
  }

  it('a plan made on the dashboard, subscribed to by e-mail, canceled from the portal and the dashboard', async () => {
    const owner = chromium.watch(await merchant.newPage());
    await owner.goto(`${api}/dashboard/subscriptions`);
    expect(await owner.getByText('No subscription yet.').isVisible()).toBe(true);
    await owner.getByRole('link', { name: 'Plans' }).click();
    await owner.waitForURL(`${api}/dashboard/subscriptions/plans`, { timeout: UI_TIMEOUT_MS });
    await owner.locator('#name').fill('Coffee club');
    await owner.locator('#amount').fill('9.90');
    await owner.locator('#currency').fill('USDC');
    await owner.locator('#trial_days').fill('7');
    await owner.getByRole('button', { name: 'Create plan' }).click();
    await owner.waitForURL(`${api}/dashboard/subscriptions/plans`, { timeout: UI_TIMEOUT_MS });
    await owner.locator('#name').fill('Coffee club plus');
    await owner.locator('#amount').fill('14.90');
    await owner.locator('#currency').fill('USDC');
    await owner.getByRole('button', { name: 'Create plan' }).click();
    await owner.waitForURL(`${api}/dashboard/subscriptions/plans`, { timeout: UI_TIMEOUT_MS });
    const row = owner
      .locator('tbody tr')
      .filter({ has: owner.getByRole('cell', { name: 'Coffee club', exact: true }) });
    expect(await row.locator('td').nth(1).textContent()).toBe('9.90 USDC per month');
    await clean(owner, 'plans');
    const subscribeUrl = await row.getByRole('link', { name: 'Subscribe page' }).getAttribute('href');
    expect(subscribeUrl).toMatch(new RegExp(`^${checkoutBase}/subscribe/[0-9a-f-]{36}$`));

    const buyer = chromium.watch(await customer.newPage());
    await buyer.goto(subscribeUrl!);
    expect(await buyer.getByRole('heading', { level: 1 }).textContent()).toBe('Coffee club');
    expect(await buyer.locator('.terms').textContent()).toContain('A free trial of 7 days');
    await clean(buyer, 'subscribe');
    await buyer.getByLabel('Your e-mail address').fill('ada@example.com');
    await buyer.getByRole('button', { name: 'Subscribe' }).click();
    await buyer.waitForURL(/\/subscriptions\/[A-Za-z0-9_-]{43}\?lang=en&done=subscribed$/, {
      timeout: UI_TIMEOUT_MS,
    });
    expect(await buyer.locator('.status-line').textContent()).toMatch(/^Free trial until /);
    const portal = buyer.url();

    // The merchant moves the subscriber to the bigger plan from the first period; the portal says so.
    await owner.goto(`${api}/dashboard/subscriptions`);
    await owner.getByRole('link', { name: 'ada@example.com' }).click();
    await owner.getByRole('heading', { name: 'Subscription of ada@example.com' }).waitFor();
    await owner
      .getByLabel('Plan', { exact: true })
      .selectOption({ label: 'Coffee club plus, 14.90 USDC per month' });
    await owner.getByRole('button', { name: 'Change from the next period' }).click();
    await owner.getByText('Plan from period 1').waitFor({ timeout: UI_TIMEOUT_MS });
    await buyer.goto(portal);
    expect(await buyer.locator('.facts').textContent()).toContain('Coffee club plus, 14.90 USDC per month');
    expect(await buyer.locator('.facts').textContent()).toContain('14.90 USDC on');
    await clean(buyer, 'portal');
    await buyer.getByRole('button', { name: 'Cancel my subscription' }).click();
    await buyer.getByText('Your subscription is canceled.').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await buyer.locator('.status-line').textContent()).toMatch(/^Canceled: it ends on /);

    const ops = chromium.watch(await operator.newPage());
    await ops.goto(`${api}/dashboard/renewals`);
    // Canceled at the trial's end: nothing will be charged, and nothing is past due.
    expect(await ops.getByText('No subscription is past due.').isVisible()).toBe(true);
    expect(await ops.getByText('No charge is planned.').isVisible()).toBe(true);
    await clean(ops, 'console');

    await owner.goto(`${api}/dashboard/subscriptions`);
    const listed = owner.locator('tbody tr').filter({ hasText: 'ada@example.com' });
    expect(await listed.locator('td').nth(2).textContent()).toBe('trial');
    await clean(owner, 'list');
    await listed.getByRole('link', { name: 'ada@example.com' }).click();
    await owner.getByRole('heading', { name: 'Subscription of ada@example.com' }).waitFor();
    expect(await owner.locator('main').textContent()).toContain('the customer');
    await clean(owner, 'detail');
    await owner.getByRole('button', { name: 'Cancel now' }).click();
    await owner.getByRole('heading', { name: 'Subscription of ada@example.com' }).waitFor();
    expect(await owner.locator('.facts .status').first().textContent()).toBe('canceled');
    expect(await owner.getByRole('button', { name: 'Cancel now' }).count()).toBe(0);
  });
});

/**
 * The wallet's way in Chromium (decision 0061), in the same browser: on anvil with the charger deployed and the
 * gasless relayer's key, a customer whose browser has a wallet (EIP-1193, anvil's customer account) subscribes
 * to a monthly USDC plan by signing the terms and USDC's permit of the charger, lands on the portal, and the
 * first period is charged (merchant and treasury exact); then switches to e-mail payments from the portal, and
 * the next period, a month on, is not charged. A plan that runs until canceled says its 12 periods' allowance
 * before signing, and its portal has the wallet approve 12 more once less than a period is left. A euro plan's
 * page proposes and states its cap (today's price and 10 %), and that cap is the one signed.
 */
describe('pull renewal from the subscribe page in Chromium', () => {
  let h: ChainHarness;
  let server: FastifyInstance;
  let base: string;
  let scene: PullScene;
  let renewal: RenewalDeps;
  let relay: RelayChargesDeps;
  let cancels: ChainCancelDeps;

  beforeAll(async () => {
    h = await startChainHarness('sqlite');
    base = `http://127.0.0.1:${await freePort()}`;
    scene = await startPullScene(h);
    ({ renewal, relay } = scene);
    cancels = {
      chain: chargerLogReader(createRpcClient([h.anvil.rpcUrl]), { kind: 'finalized' }),
      store: h.stores.chainCancels,
      clock: h.clock,
      logger: capturingLogger().logger,
    };
    const buckets = memoryBucketStore();
    server = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: { name: 'Sandbox (local anvil)', chainId: scene.chain.chainId, explorerUrl: '' },
      subscriptionPages: { renewal, buckets, receiptTokens: h.stores.receiptTokens, checkoutUrl: base },
      mandatePages: scene.mandatePages(buckets),
    });
    await server.listen({ host: '127.0.0.1', port: Number(new URL(base).port) });
  });
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  const moveTo = (date: Date) => scene.moveTo(date);
  /** A browser whose wallet (EIP-1193) is anvil's customer account, on the chain already. */
  const walletBrowser = () =>
    openWalletContext(
      chromium.browser,
      {
        rpcUrl: h.anvil.rpcUrl,
        chainId: h.anvil.chain.id,
        accounts: h.anvil.addresses,
        defaultAccountIndex: ROLES.customer,
      },
      { startChainId: `0x${h.anvil.chain.id.toString(16)}`, knowsChain: true },
    );

  it('subscribes by permit and signed terms, charges the first period, and stops after a switch to e-mail', async () => {
    const { plan } = await createPlan(renewal, h.merchant.id, 'live', {
      name: 'Coffee club',
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
      intervalUnit: 'month',
      graceDays: '3',
      periods: '3',
    });
    const context = await walletBrowser();
    try {
      // Without a wallet the section says so, and the e-mail form is there.
      const bare = await chromium.browser.newContext({ locale: 'en-GB', timezoneId: 'UTC' });
      const plain = chromium.watch(await bare.newPage());
      await plain.goto(`${base}/subscribe/${plan.id}`);
      expect(await plain.locator('[data-no-wallet]').isVisible()).toBe(true);
      expect(await plain.getByRole('button', { name: 'Subscribe with my wallet' }).count()).toBe(0);
      expect(await plain.getByRole('button', { name: 'Subscribe', exact: true }).isVisible()).toBe(true);
      await bare.close();

      const page = chromium.watch(await context.newPage());
      await page.goto(`${base}/subscribe/${plan.id}`);
      expect(await page.locator('#wallet-way h2').textContent()).toBe('Pay each period from your wallet');
      await expectCleanScreen(
        page,
        'subscribe-wallet',
        `${SCREENSHOTS}/subscriptions-subscribe-wallet-1280.png`,
      );
      // The allowance is the cap times the three periods.
      expect(await page.locator('#wallet-way').textContent()).toContain('30.00 USDC');
      await page.locator('#wallet-email').fill('ada@example.com');
      await page.getByRole('button', { name: 'Subscribe with my wallet' }).click();
      await page.waitForURL(/\/subscriptions\/[A-Za-z0-9_-]{43}\?lang=en&done=subscribed$/, {
        timeout: UI_TIMEOUT_MS,
      });
      const token = new URL(page.url()).pathname.split('/')[2]!;
      const record = (await h.stores.subscriptions.findByPortalToken(token))!;
      const id = record.subscription.id;
      const mandate = (await h.stores.mandates.findMandate(id))!;
      expect(mandate.status).toBe('active');
      expect(mandate.terms.customer.toLowerCase()).toBe(h.addresses.customer.toLowerCase());
      expect(mandate.permit?.value).toBe(30_000_000n);
      expect(await page.locator('#mandate').textContent()).toContain('10.00 USDC');
      await expectCleanScreen(page, 'portal-mandate', `${SCREENSHOTS}/subscriptions-portal-mandate-1280.png`);

      const before = {
        merchant: await h.balanceOf(h.addresses.merchant),
        treasury: await h.balanceOf(h.addresses.treasury),
      };
      await moveTo(periodStart(record.subscription.anchor, { unit: 'month', count: 1 }, 1));
      await renewDueSubscriptions(renewal, 50);
      expect((await relayChargeOnce(relay)).kind).toBe('sent');
      const hash = (await h.stores.mandates.findCharge(id, 1))?.txHash as Hex;
      await h.anvil.publicClient.waitForTransactionReceipt({ hash });
      await h.anvil.testClient.mine({ blocks: 2 }); // its block final: a charge is applied once final
      expect((await relayChargeOnce(relay)).kind).toBe('mined');
      expect(await h.balanceOf(h.addresses.merchant)).toBe(before.merchant + 9_750_000n);
      expect(await h.balanceOf(h.addresses.treasury)).toBe(before.treasury + 250_000n);

      await page.reload();
      await page.getByRole('button', { name: 'Switch to e-mail payments' }).click();
      await page.waitForURL(/done=switched$/, { timeout: UI_TIMEOUT_MS });
      expect(await page.locator('#mandate .notice').first().textContent()).toBe(
        'Your wallet is no longer charged: each period’s link comes by e-mail.',
      );
      expect((await h.stores.mandates.findMandate(id))?.status).toBe('canceled');

      await moveTo(periodStart(record.subscription.anchor, { unit: 'month', count: 1 }, 2));
      await renewDueSubscriptions(renewal, 50);
      expect(await h.stores.mandates.findCharge(id, 2)).toBeUndefined();
      expect((await relayChargeOnce(relay)).kind).toBe('idle');
      expect(await h.balanceOf(h.addresses.merchant)).toBe(before.merchant + 9_750_000n);
    } finally {
      await context.close();
    }
  });
  it('revokes the terms on chain from the portal: the wallet sends cancel(terms), the portal then says so', async () => {
    const { plan } = await createPlan(renewal, h.merchant.id, 'live', {
      name: 'Tea club',
      amount: '5',
      currency: 'USDC',
      trialDays: '1',
      intervalUnit: 'month',
      graceDays: '3',
      periods: '3',
    });
    const { subscription } = await createSubscription(renewal, h.merchant.id, 'live', {
      planId: plan.id,
      customerEmail: 'ada@example.com',
      customerWallet: h.addresses.customer,
    });
    const { id, portalToken: token } = subscription.subscription;
    const { terms, signature } = await scene.signedTerms(token);
    const mandate = await submitMandate(scene.mandateDeps, token, { terms: termsJson(terms), signature });
    const stateOf = () =>
      h.anvil.publicClient.readContract({
        address: scene.chain.charger as Address,
        abi: subscriptionChargerAbi,
        functionName: 'stateOf',
        args: [mandate.mandateId as Hex],
      });
    expect(await stateOf()).toBe(0n);
    const context = await walletBrowser();
    try {
      const page = chromium.watch(await context.newPage());
      await page.goto(`${base}/subscriptions/${token}`);
      await page.getByRole('button', { name: 'Revoke on chain' }).click();
      const live = page.locator('#mandate [data-live]');
      await live.filter({ hasText: 'Revoked on chain' }).waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await live.textContent()).toBe('Revoked on chain: these terms can never be charged again.');
      // The wallet sent the charger's cancel(terms) from the customer's account; the contract holds it canceled.
      const sent = (
        await page.evaluate(
          () => (window as unknown as { __walletCalls: { method: string; params: unknown }[] }).__walletCalls,
        )
      ).find((c) => c.method === 'eth_sendTransaction');
      expect(sent?.params).toEqual([
        { from: h.addresses.customer, to: mandate.charger, data: cancelCallData(mandate) },
      ]);
      expect(await stateOf()).toBe(2n ** 256n - 1n);
      await expectCleanScreen(page, 'portal-revoked', `${SCREENSHOTS}/subscriptions-portal-revoked-1280.png`);

      // Once its block is final, the worker's reading of the charger's logs marks the mandate canceled.
      await readChainCancelsOnce(cancels, {
        chainId: scene.chain.chainId,
        charger: scene.chain.charger,
        maxBlockRange: 1000,
      });
      expect((await h.stores.mandates.findMandate(id))?.status).toBe('active');
      await h.finalizeAll();
      await readChainCancelsOnce(cancels, {
        chainId: scene.chain.chainId,
        charger: scene.chain.charger,
        maxBlockRange: 1000,
      });
      const canceled = await h.stores.mandates.findMandate(id);
      expect(canceled?.status).toBe('canceled');
      await page.reload();
      const section = page.locator('#mandate');
      expect(await section.textContent()).toContain('Canceled on chain by your wallet on');
      expect(await section.locator('code.hash').textContent()).toBe(canceled?.canceledOnChain?.txHash);
      expect(await page.getByRole('button', { name: 'Revoke on chain' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Switch to e-mail payments' }).count()).toBe(0);
      await clean(page, 'portal-canceled-on-chain');
    } finally {
      await context.close();
    }
  });
  it('states an open-ended plan’s allowance of 12 periods before signing, and tops it up from the portal', async () => {
    const { plan } = await createPlan(renewal, h.merchant.id, 'live', {
      name: 'Open coffee club',
      amount: '10',
      currency: 'USDC',
      trialDays: '1',
      intervalUnit: 'month',
      graceDays: '3',
    });
    const context = await walletBrowser();
    const charger = scene.chain.charger as Address;
    const allowance = () =>
      h.anvil.publicClient.readContract({
        address: h.usdc,
        abi: testUsdcAbi,
        functionName: 'allowance',
        args: [h.addresses.customer as Address, charger],
      });
    try {
      const page = chromium.watch(await context.newPage());
      await page.goto(`${base}/subscribe/${plan.id}`);
      // Said before anything is signed: 12 periods' cap, and that the portal allows more.
      const said = await page.locator('#wallet-way').textContent();
      expect(said).toContain('120.00 USDC');
      expect(said).toContain('12 periods at most');
      await page.locator('#wallet-email').fill('ada@example.com');
      await page.getByRole('button', { name: 'Subscribe with my wallet' }).click();
      await page.waitForURL(/done=subscribed$/, { timeout: UI_TIMEOUT_MS });
      const token = new URL(page.url()).pathname.split('/')[2]!;
      const { subscription } = (await h.stores.subscriptions.findByPortalToken(token))!;
      expect((await h.stores.mandates.findMandate(subscription.id))?.permit?.value).toBe(120_000_000n);
      await moveTo(periodStart(subscription.anchor, { unit: 'month', count: 1 }, 1));
      await renewDueSubscriptions(renewal, 50);
      expect((await relayChargeOnce(relay)).kind).toBe('sent');
      const hash = (await h.stores.mandates.findCharge(subscription.id, 1))?.txHash as Hex;
      await h.anvil.publicClient.waitForTransactionReceipt({ hash });
      await h.anvil.testClient.mine({ blocks: 2 }); // its block final: a charge is applied once final
      expect((await relayChargeOnce(relay)).kind).toBe('mined');
      expect(await allowance()).toBe(110_000_000n);

      // The customer's allowance fell below a period (their own approve): the portal offers 12 more.
      const lower = await h.anvil.wallet(ROLES.customer).writeContract({
        address: h.usdc,
        abi: testUsdcAbi,
        functionName: 'approve',
        args: [charger, 4_000_000n],
      });
      await h.anvil.publicClient.waitForTransactionReceipt({ hash: lower });
      await page.goto(`${base}/subscriptions/${token}?lang=en`);
      expect(await page.locator('[data-allowance-left]').textContent()).toBe('4.00 USDC');
      await expectCleanScreen(page, 'portal-top-up', `${SCREENSHOTS}/subscriptions-portal-top-up-1280.png`);
      await page.getByRole('button', { name: 'Allow 12 more periods' }).click();
      await page
        .locator('#allowance [data-live]')
        .filter({ hasText: 'Done: the charger may now take up to 120.00 USDC' })
        .waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await allowance()).toBe(120_000_000n);
      await page.reload();
      expect(await page.locator('[data-allowance-left]').textContent()).toBe('120.00 USDC');
      expect(await page.getByRole('button', { name: 'Allow 12 more periods' }).count()).toBe(0);
      await h.stores.subscriptions.cancel(
        subscription.id,
        { at: h.clock.now(), by: 'merchant' },
        h.clock.now(),
      );
    } finally {
      await context.close();
    }
  });
  it("offers a euro plan's wallet way at today's price and a margin, states the cap and signs it", async () => {
    // 10 EUR at the harness's 1.08: 10.80 USDC, and 10 % is 11.88 USDC at most per period.
    const { plan } = await createPlan(renewal, h.merchant.id, 'live', {
      name: 'Euro club',
      amount: '10',
      currency: 'EUR',
      trialDays: '1',
      intervalUnit: 'month',
      graceDays: '3',
      periods: '3',
    });
    const context = await openWalletContext(
      chromium.browser,
      {
        rpcUrl: h.anvil.rpcUrl,
        chainId: h.anvil.chain.id,
        accounts: h.anvil.addresses,
        defaultAccountIndex: ROLES.customer,
      },
      { startChainId: `0x${h.anvil.chain.id.toString(16)}`, knowsChain: true },
    );
    try {
      const page = chromium.watch(await context.newPage());
      await page.goto(`${base}/subscribe/${plan.id}?lang=fr`);
      const french = await page.locator('#wallet-way').textContent();
      expect(french).toContain('au plus 11,88 USDC par période');
      expect(french).toContain('si le prix en EUR demande davantage');
      await page.goto(`${base}/subscribe/${plan.id}`);
      const said = await page.locator('#wallet-way').textContent();
      expect(said).toContain(
        'at most 11.88 USDC per period and never twice in a period; if the EUR price needs more, we e-mail you a link instead',
      );
      // The allowance: the cap times the three periods.
      expect(said).toContain('USDC allowance of 35.64 USDC');
      await page.locator('#wallet-email').fill('ada@example.com');
      await page.getByRole('button', { name: 'Subscribe with my wallet' }).click();
      await page.waitForURL(/done=subscribed$/, { timeout: UI_TIMEOUT_MS });
      const token = new URL(page.url()).pathname.split('/')[2]!;
      const { subscription } = (await h.stores.subscriptions.findByPortalToken(token))!;
      const mandate = (await h.stores.mandates.findMandate(subscription.id))!;
      expect(mandate.terms.cap).toBe(11_880_000n);
      expect(mandate.permit?.value).toBe(35_640_000n);
      expect(await page.locator('#mandate').textContent()).toContain('11.88 USDC');

      // Its first period is charged at its own quote, 10.80 USDC, split exactly.
      const before = {
        merchant: await h.balanceOf(h.addresses.merchant),
        treasury: await h.balanceOf(h.addresses.treasury),
      };
      await moveTo(periodStart(subscription.anchor, { unit: 'month', count: 1 }, 1));
      await renewDueSubscriptions(renewal, 50);
      expect((await relayChargeOnce(relay)).kind).toBe('sent');
      const hash = (await h.stores.mandates.findCharge(subscription.id, 1))?.txHash as Hex;
      await h.anvil.publicClient.waitForTransactionReceipt({ hash });
      await h.anvil.testClient.mine({ blocks: 2 }); // its block final
      expect((await relayChargeOnce(relay)).kind).toBe('mined');
      expect(await h.balanceOf(h.addresses.merchant)).toBe(before.merchant + 10_530_000n);
      expect(await h.balanceOf(h.addresses.treasury)).toBe(before.treasury + 270_000n);
      await h.stores.subscriptions.cancel(
        subscription.id,
        { at: h.clock.now(), by: 'merchant' },
        h.clock.now(),
      );
    } finally {
      await context.close();
    }
  });
});
