/**
 * The Medusa plugin (packages/medusa) on a real Medusa 2 store — the fixture store in packages/medusa/test-store,
 * on a database of its own on the test PostgreSQL — selling through Medusa's Store API to a shopper who pays a
 * real Paylink sandbox (`paylink serve`, its own anvil chain) on chain, from Paylink's checkout page in Chromium
 * with a test wallet. Webhooks reach Medusa through a relay the test controls, so one can be dropped, kept and
 * replayed. Runs when the plugin's install is there
 * (`npm ci` in packages/medusa; CI installs it) and PostgreSQL is given.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { createPublicClient, createWalletClient, type Hash, type Hex, http, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { signWebhook } from '../../src/domain/webhookSignature.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount, sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { UI_TIMEOUT_MS, useChromium } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { buildPlugin, type MedusaStore, startMedusaStore } from '../helpers/medusaStore.ts';
import { eventually, freePort } from '../helpers/net.ts';
import { type PaylinkSandbox, startPaylinkSandbox } from '../helpers/paylinkSandbox.ts';
import { walletContext } from '../helpers/testWallet.ts';
import { installTestsRun } from '../setup/skippedParts.ts';

const DATABASE_URL = process.env.PAYLINK_TEST_DATABASE_URL;
const HOOK = '/hooks/payment/paylink_paylink';
/** What the plugin calls (its README's list): the scopes of the restricted key the store runs on. */
const MEDUSA_SCOPES = ['payments:read', 'payments:write', 'refunds:read', 'refunds:write'];
const PROVIDER = 'pp_paylink_paylink';

// biome-ignore lint/suspicious/noExplicitAny: the APIs' answers, read field by field where the test asserts on them
type Json = Record<string, any>;

interface Delivery {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly event: Json;
}

/** Paylink's webhooks on their way to Medusa: each one kept, passed on unless the test drops it. */
function webhookRelay(target: () => string) {
  const deliveries: Delivery[] = [];
  let dropping = false;
  const server: Server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        ([name]) => name.startsWith('webhook-') || name === 'content-type',
      ),
    ) as Record<string, string>;
    deliveries.push({ headers, body, event: JSON.parse(body) as Json });
    if (dropping) return void response.writeHead(200).end();
    // Once the store has stopped (after the last test), Paylink's retries meet a 502, as from a proxy.
    const passed = await fetch(`${target()}${HOOK}`, { method: 'POST', headers, body }).catch(
      () => undefined,
    );
    if (!passed) return void response.writeHead(502).end();
    response.writeHead(passed.status).end(await passed.text());
  });
  return {
    server,
    deliveries,
    drop(on: boolean) {
      dropping = on;
    },
  };
}

describe.runIf(installTestsRun('medusa') && DATABASE_URL)('the Medusa plugin on a real Medusa store', () => {
  let paylink: PaylinkSandbox;
  let store: MedusaStore;
  let relay: ReturnType<typeof webhookRelay>;
  let storefront: Server;
  let storefrontUrl: string;
  /** What the storefront's return page got from completing each cart, by cart id. */
  const returns = new Map<string, Json>();
  let adminToken: string;
  /** One Chromium for the file; each shopper a context of their own. */
  const chromium = useChromium();

  const api = async (
    base: string,
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const response = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { 'content-type': 'application/json', ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Json };
  };
  const storeApi = (path: string, body?: unknown) =>
    api(store.url, path, { body, headers: { 'x-publishable-api-key': store.seeded.publishable_key } });
  const adminApi = (path: string, body?: unknown) =>
    api(store.url, path, { body, headers: { authorization: `Bearer ${adminToken}` } });
  const paylinkApi = (path: string, body?: unknown) =>
    api(paylink.apiUrl, path, { body, headers: { 'x-api-key': paylink.apiKey } });

  beforeAll(async () => {
    await buildPlugin();
    paylink = await startPaylinkSandbox();
    relay = webhookRelay(() => store.url);
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    // The storefront's return page: it completes the cart, as Medusa's Next.js starter does, and shows the order.
    storefront = createServer(async (request, response) => {
      const url = new URL(request.url ?? '/', 'http://storefront');
      if (url.pathname === '/favicon.ico') return void response.writeHead(204).end();
      if (url.pathname !== '/paylink/return') return void response.writeHead(404).end();
      const cartId = url.searchParams.get('cart_id') ?? '';
      const completed = await storeApi(`/store/carts/${cartId}/complete`, {});
      const back: Json = { payment_id: url.searchParams.get('payment_id'), ...completed.body };
      returns.set(cartId, back);
      response.writeHead(completed.status, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html lang="en"><title>Your order</title><h1>${
          back.type === 'order' ? `Order ${back.order.display_id} placed` : 'Not paid yet'
        }</h1></html>`,
      );
    });
    await new Promise<void>((resolve) => storefront.listen(0, '127.0.0.1', resolve));
    storefrontUrl = `http://127.0.0.1:${(storefront.address() as AddressInfo).port}`;
    // The plugin runs on the narrowest key that works, as its README recommends: a restricted key.
    const restricted = await api(paylink.apiUrl, '/payments/api/keys/', {
      body: { name: 'Medusa test store', scopes: MEDUSA_SCOPES },
      headers: { 'x-api-key': paylink.apiKey },
    });
    expect(restricted.status).toBe(201);
    store = await startMedusaStore(DATABASE_URL!, {
      STORE_URL: storefrontUrl,
      MEDUSA_BACKEND_URL: `http://127.0.0.1:${(relay.server.address() as AddressInfo).port}`,
      PAYLINK_API_URL: paylink.apiUrl,
      PAYLINK_API_KEY: restricted.body.key,
      PAYLINK_WEBHOOK_SECRET: paylink.webhookSecret,
      // The safety net's pass every 2 s instead of every minute, so a dropped webhook is caught within the test.
      PAYLINK_RECHECK_INTERVAL_MS: '2000',
    });
    const login = await api(store.url, '/auth/user/emailpass', { body: store.seeded.admin });
    adminToken = login.body.token;
  }, 600_000);

  afterAll(async () => {
    await store?.stop();
    await paylink?.stop();
    relay?.server.close();
    storefront?.close();
  });

  /** A shopper's cart up to the payment step: one $25 mug, $2 shipping, a Paylink payment session. */
  async function cartAtPayment(email: string) {
    const cart = (await storeApi('/store/carts', { region_id: store.seeded.region_id, email })).body.cart;
    await storeApi(`/store/carts/${cart.id}/line-items`, {
      variant_id: store.seeded.variant_id,
      quantity: 1,
    });
    const address = {
      first_name: 'Ada',
      last_name: 'Shopper',
      address_1: '1 Elm St',
      city: 'Austin',
      postal_code: '73301',
      country_code: 'us',
    };
    await storeApi(`/store/carts/${cart.id}`, { shipping_address: address, billing_address: address });
    const options = (await storeApi(`/store/shipping-options?cart_id=${cart.id}`)).body.shipping_options;
    await storeApi(`/store/carts/${cart.id}/shipping-methods`, { option_id: options[0].id });
    const collection = (await storeApi('/store/payment-collections', { cart_id: cart.id })).body
      .payment_collection;
    return { cartId: cart.id as string, collectionId: collection.id as string };
  }

  const startSession = (collectionId: string, cartId: string, email: string) =>
    storeApi(`/store/payment-collections/${collectionId}/payment-sessions`, {
      provider_id: PROVIDER,
      data: { cart_id: cartId, email },
    });

  const sessionsOf = async (cartId: string) => {
    const cart = (await storeApi(`/store/carts/${cartId}?fields=*payment_collection.payment_sessions`)).body
      .cart;
    return (cart.payment_collection?.payment_sessions ?? []) as Json[];
  };

  const orderOf = async (email: string) => {
    const list = await adminApi(
      '/admin/orders?fields=id,email,payment_status,*payment_collections,*payment_collections.payments,*payment_collections.payments.captures&limit=100',
    );
    return (list.body.orders as Json[]).find((order) => order.email === email);
  };

  const chain = () => createPublicClient({ chain: foundry, transport: http(paylink.rpcUrl) });

  /**
   * The shopper on Paylink's checkout page in Chromium, a browser wallet holding `wallet` (the sandbox's funded
   * customer account by default, whose keys anvil holds; or a key of its own), already on the sandbox's chain.
   * With gas, they choose "Pay with a normal transfer instead" and the wallet sends the USDC transfer; gasless,
   * "Pay with browser wallet" has the wallet sign it and Paylink relay it. Either way the paid page takes them
   * back by itself to the storefront's success_url, which completes the cart.
   */
  async function payOnCheckout(
    session: Json,
    cartId: string,
    how: { readonly withGas: true } | { readonly withGas: false; readonly privateKey: Hex },
  ): Promise<Page> {
    const context = await walletContext(
      chromium.browser,
      {
        rpcUrl: paylink.rpcUrl,
        chainId: foundry.id,
        accounts: Array.from({ length: 10 }, (_, i) => sandboxAccount(i).address),
        defaultAccountIndex: SANDBOX_ACCOUNTS.customer,
      },
      {
        knowsChain: true,
        startChainId: `0x${foundry.id.toString(16)}`,
        ...(how.withGas ? {} : { privateKey: how.privateKey }),
      },
    );
    const page = await context.newPage();
    chromium.watch(page);
    page.on('response', (answer) => {
      if (answer.status() >= 400) chromium.errors.push(`HTTP ${answer.status()}: ${answer.url()}`);
    });
    expect((await page.goto(session.data.payment_url))?.status()).toBe(200);
    await page
      .getByRole('button', {
        name: how.withGas ? 'Pay with a normal transfer instead' : 'Pay with browser wallet',
      })
      .click();
    await page.waitForURL(
      (url) =>
        url.origin === storefrontUrl &&
        url.pathname === '/paylink/return' &&
        url.searchParams.get('cart_id') === cartId &&
        url.searchParams.get('payment_id') === session.data.payment_id,
      { timeout: UI_TIMEOUT_MS },
    );
    return page;
  }

  it('sells a product: cart to order through the Store API, paid from a browser wallet on the checkout page with gas, back to the storefront, captured', async () => {
    const email = `buyer-${randomBytes(3).toString('hex')}@shop.test`;
    const { cartId, collectionId } = await cartAtPayment(email);
    const started = await startSession(collectionId, cartId, email);
    expect(started.status).toBe(200);
    const session = (started.body.payment_collection.payment_sessions as Json[]).find(
      (s) => s.provider_id === PROVIDER,
    )!;
    expect(session.data.payment_url).toMatch(new RegExp(`^${paylink.checkoutUrl}/pay/`));

    // The Paylink payment is the cart's: its total in its currency, ids in metadata, the storefront's URLs.
    const payment = (await paylinkApi(`/payments/api/status/${session.data.payment_id}/`)).body;
    expect(payment).toMatchObject({
      status: 'pending',
      amount: '27.00',
      currency: 'USD',
      order_id: cartId,
      metadata: { cart_id: cartId, session_id: session.id },
    });
    expect(payment.success_url).toBe(
      `${storefrontUrl}/paylink/return?cart_id=${cartId}&payment_id=${payment.payment_id}`,
    );
    expect(payment.cancel_url).toBe(
      `${storefrontUrl}/cart?cart_id=${cartId}&payment_id=${payment.payment_id}`,
    );

    // Not paid yet: Medusa refuses to complete the cart, since the provider asks Paylink.
    const early = await storeApi(`/store/carts/${cartId}/complete`, {});
    expect(early.body.type ?? early.body.message).not.toBe('order');

    // The shopper pays on the checkout page, a normal transfer from their wallet, and lands on the storefront.
    const page = await payOnCheckout(session, cartId, { withGas: true });
    const back = returns.get(cartId)!;
    expect(back.type).toBe('order');
    expect(back.payment_id).toBe(payment.payment_id);
    expect(await page.locator('h1').textContent()).toBe(`Order ${back.order.display_id} placed`);
    const paid = (await paylinkApi(`/payments/api/status/${payment.payment_id}/`)).body;
    expect(paid).toMatchObject({ status: 'paid', amount_received: '27.00' });
    // Sent by the shopper's own wallet, a USDC transfer it paid the gas for.
    const sent = await chain().getTransaction({ hash: paid.txid as Hash });
    expect(sent.from).toBe(sandboxAccount(SANDBOX_ACCOUNTS.customer).address.toLowerCase());
    expect(sent.to).toBe((paid.token_address as string).toLowerCase());

    const order = await eventually(
      () => orderOf(email),
      (o) => o?.payment_status === 'captured',
    );
    expect(order?.id).toBe(back.order.id);
    const captured = order!.payment_collections[0].payments[0];
    expect(captured.provider_id).toBe(PROVIDER);
    expect(captured.data).toMatchObject({
      payment_id: payment.payment_id,
      paylink_status: 'paid',
      txid: paid.txid,
    });
    expect(captured.captures).toHaveLength(1);

    // The webhook of that payment (delivered, verified) changed nothing more: still one order, one capture.
    await eventually(
      async () =>
        relay.deliveries.some(
          (d) => d.event.event === 'payment.paid' && d.event.payment_id === payment.payment_id,
        ),
      Boolean,
    );
    const replay = relay.deliveries.find(
      (d) => d.event.event === 'payment.paid' && d.event.payment_id === payment.payment_id,
    )!;
    await fetch(`${store.url}${HOOK}`, { method: 'POST', headers: replay.headers, body: replay.body });
    await eventually(
      async () => store.output(),
      (text) => text.includes(`Paylink webhook ${replay.event.id} ignored: it was received already`),
    );
    expect((await orderOf(email))!.payment_collections[0].payments[0].captures).toHaveLength(1);
  });

  it('sells to a shopper who pays gasless from the checkout page: the wallet signs, Paylink relays (no POL)', async () => {
    const owner = createWalletClient({
      account: privateKeyToAccount(sandboxPrivateKey(SANDBOX_ACCOUNTS.relayer)),
      chain: foundry,
      transport: http(paylink.rpcUrl),
    });
    const email = `gasless-${randomBytes(3).toString('hex')}@shop.test`;
    const { cartId, collectionId } = await cartAtPayment(email);
    const session = (
      (await startSession(collectionId, cartId, email)).body.payment_collection.payment_sessions as Json[]
    )[0]!;
    const paymentId = session.data.payment_id as string;
    // A shopper fresh from an exchange: the USDC due (minted by the sandbox token's owner), no POL at all.
    const offer = (await fetch(`${paylink.checkoutUrl}/pay/${paymentId}/gasless.json`).then((r) =>
      r.json(),
    )) as {
      domain: { verifyingContract: Hex };
      value: string;
    };
    const key = generatePrivateKey();
    const shopper = privateKeyToAccount(key);
    await chain().waitForTransactionReceipt({
      hash: await owner.writeContract({
        address: offer.domain.verifyingContract,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [shopper.address, BigInt(offer.value)],
      }),
    });

    await payOnCheckout(session, cartId, { withGas: false, privateKey: key });
    const back = returns.get(cartId)!;
    expect(back.type).toBe('order');
    const paid = (await paylinkApi(`/payments/api/status/${paymentId}/`)).body;
    expect(paid).toMatchObject({ status: 'paid', amount_received: '27.00' });
    // Relayed: the transaction is Paylink's, and the shopper's wallet never held gas.
    expect((await chain().getTransaction({ hash: paid.txid as Hash })).from).not.toBe(
      shopper.address.toLowerCase(),
    );
    expect(await chain().getBalance({ address: shopper.address })).toBe(0n);
    const order = await eventually(
      () => orderOf(email),
      (o) => o?.payment_status === 'captured',
    );
    expect(order!.id).toBe(back.order.id);
    expect(order!.payment_collections[0].payments[0].data).toMatchObject({
      paylink_status: 'paid',
      txid: paid.txid,
    });
    expect(order!.payment_collections[0].payments[0].captures).toHaveLength(1);
  });

  /**
   * A purchase paid by `paylink sandbox pay` (the shopper's transfer, without a browser), then the return
   * through success_url, and the order once its payment is captured.
   */
  async function buy(email: string) {
    const { cartId, collectionId } = await cartAtPayment(email);
    const session = (
      (await startSession(collectionId, cartId, email)).body.payment_collection.payment_sessions as Json[]
    )[0]!;
    const paymentId = session.data.payment_id as string;
    expect((await runCli(['sandbox', 'pay', paymentId], paylink.env)).stderr).toBe('');
    const paid = await eventually(
      () => paylinkApi(`/payments/api/status/${paymentId}/`),
      (r) => r.body.status === 'paid',
    );
    await fetch(paid.body.success_url);
    const order = await eventually(
      () => orderOf(email),
      (o) => o?.payment_status === 'captured',
    );
    return { paymentId, paylinkPayment: paid.body, order: order! };
  }

  it("refunds part of an order from Medusa's admin: a Paylink refund the customer claims and receives", async () => {
    const email = `refund-${randomBytes(3).toString('hex')}@shop.test`;
    const { paylinkPayment, order } = await buy(email);
    const payment = order.payment_collections[0].payments[0];
    const refunded = await adminApi(`/admin/payments/${payment.id}/refund`, { amount: 10 });
    expect(refunded.status).toBe(200);
    const stored = (await adminApi(`/admin/payments/${payment.id}?fields=id,data,*refunds`)).body.payment;
    expect(stored.refunds.map((r: Json) => Number(r.amount))).toStrictEqual([10]);
    // The claim link is on the payment, for the admin to send the customer.
    const entry = stored.data.refunds[0];
    expect(entry).toMatchObject({
      status: 'awaiting_address',
      requested_amount: '10',
      requested_currency: 'USD',
      claim_url: `${paylink.checkoutUrl}/refunds/${entry.refund_id}`,
    });
    expect((await paylinkApi(`/payments/api/refunds/${entry.refund_id}/`)).body.payment_id).toBe(
      paylinkPayment.payment_id,
    );

    const customer = privateKeyToAccount(generatePrivateKey()).address;
    const claimed = await fetch(`${entry.claim_url}/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: customer }),
    });
    expect(claimed.status).toBe(200);
    // refund.address_provided brings the customer's address and where to fund onto Medusa's payment by itself.
    const paymentData = async () =>
      (await adminApi(`/admin/payments/${payment.id}?fields=id,data`)).body.payment.data.refunds[0] as Json;
    // (30 s at most, so that a state that never comes fails on what the payment shows.)
    const toFund = await eventually(paymentData, (r) => r.status === 'awaiting_funds', 150);
    expect(toFund).toMatchObject({
      refund_id: entry.refund_id,
      address: customer,
      claim_url: entry.claim_url,
    });
    expect(toFund.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The shop funds it from its wallet (the sandbox's command sends exactly what is asked).
    const funded = await runCli(['sandbox', 'pay', entry.refund_id], paylink.env);
    expect(funded.stderr).toBe('');
    const done = await eventually(
      () => paylinkApi(`/payments/api/refunds/${entry.refund_id}/`),
      (r) => r.body.status === 'refunded',
    );
    expect(done.body).toMatchObject({ address: customer, amount_sent: entry.amount });
    const received = await chain().readContract({
      address: paylinkPayment.token_address,
      abi: testUsdcAbi,
      functionName: 'balanceOf',
      args: [customer],
    });
    expect(received).toBe(parseUnits(entry.amount, 6));
    // And refund.refunded records on the payment that the customer was paid, and by which transaction,
    // without the admin asking Paylink.
    expect(await eventually(paymentData, (r) => r.status === 'refunded', 150)).toMatchObject({
      refund_id: entry.refund_id,
      status: 'refunded',
      address: customer,
      amount_sent: entry.amount,
      txid: done.body.txid,
    });
    expect(done.body.txid).toMatch(/^0x[0-9a-f]{64}$/);
  });

  describe('the provider, called as Medusa calls it, against the same Paylink', () => {
    // The plugin as built for its package, loaded as Medusa loads it (require).
    const provider = (options: Json = {}, at: PaylinkSandbox = paylink) => {
      const { PaylinkProviderService } = createRequire(import.meta.url)(
        '../../packages/medusa/.medusa/server/src/index.js',
      ) as { PaylinkProviderService: new (container: Json, options: Json) => Json };
      return new PaylinkProviderService(
        {},
        {
          apiUrl: at.apiUrl,
          apiKey: at.apiKey,
          webhookSecret: at.webhookSecret,
          successUrl: `${storefrontUrl}/paylink/return?cart_id={cart_id}`,
          cancelUrl: `${storefrontUrl}/cart`,
          ...options,
        },
      );
    };
    const initiate = (service: Json, amount: unknown, currency = 'usd') =>
      service.initiatePayment({
        amount,
        currency_code: currency,
        data: {
          session_id: `payses_${randomBytes(4).toString('hex')}`,
          cart_id: `cart_${randomBytes(4).toString('hex')}`,
        },
        context: {},
      });

    it('prices exactly what Medusa asks, from a BigNumber, a string or a number, never through a float', async () => {
      const exact = await initiate(provider(), { raw: { value: '19.90', precision: 20 } });
      const status = (id: string) => paylinkApi(`/payments/api/status/${id}/`).then((r) => r.body);
      expect(await status(exact.id)).toMatchObject({ amount: '19.90', currency: 'USD' });
      expect((await status((await initiate(provider(), '1.5e1')).id)).amount).toBe('15.00');
      expect((await status((await initiate(provider(), 27.5)).id)).amount).toBe('27.50');
    });

    it('keeps the payment while the amount stays, and makes a new one when the cart total changes', async () => {
      const service = provider();
      const first = await initiate(service, 27);
      const same = await service.updatePayment({
        amount: 27,
        currency_code: 'usd',
        data: first.data,
        context: {},
      });
      expect(same.data.payment_id).toBe(first.id);
      const more = await service.updatePayment({
        amount: 52,
        currency_code: 'usd',
        data: first.data,
        context: {},
      });
      expect(more.data.payment_id).not.toBe(first.id);
      expect((await paylinkApi(`/payments/api/status/${more.data.payment_id}/`)).body.amount).toBe('52.00');
    });

    it('pays in test mode with the test key: the payment is a test payment, unseen by the live key', async () => {
      const service = provider({ apiKey: paylink.testApiKey, testMode: true });
      const created = await initiate(service, 27);
      const status = await api(paylink.apiUrl, `/payments/api/status/${created.id}/`, {
        headers: { 'x-api-key': paylink.testApiKey },
      });
      expect(status.body).toMatchObject({ amount: '27.00', status: 'pending' });
      // A test payment belongs to test mode: the live key does not see it.
      expect((await paylinkApi(`/payments/api/status/${created.id}/`)).status).toBe(404);
    });

    it('replaces a link that expired unpaid, with one new payment however often it is asked', async () => {
      // A second sandbox whose links live two seconds.
      const quick = await startPaylinkSandbox({ PAYLINK_PAYMENT_TTL: '2s' });
      try {
        const service = provider({}, quick);
        const first = await initiate(service, 27);
        const state = (id: string) =>
          api(quick.apiUrl, `/payments/api/status/${id}/`, { headers: { 'x-api-key': quick.apiKey } });
        await eventually(
          () => state(first.id),
          (r) => r.body.status === 'expired',
        );
        const update = () =>
          service.updatePayment({ amount: 27, currency_code: 'usd', data: first.data, context: {} });
        const [one, two] = await Promise.all([update(), update()]);
        expect(one.data.payment_id).not.toBe(first.id);
        expect(two.data.payment_id).toBe(one.data.payment_id);
        expect(one.data.payment_url).toBe(`${quick.checkoutUrl}/pay/${one.data.payment_id}`);
        const listed = await api(quick.apiUrl, `/payments/api/payments/?order_id=${first.data.order_id}`, {
          headers: { 'x-api-key': quick.apiKey },
        });
        expect((listed.body.payments as Json[]).map((p) => p.payment_id).sort()).toStrictEqual(
          [first.id, one.data.payment_id].sort(),
        );
      } finally {
        await quick.stop();
      }
    }, 180_000);

    it('tells the shop owner what to do: a bad key, Paylink unreachable, a currency it does not convert', async () => {
      const badKey = 'sk_live_notarealkeyatall0000000000';
      const refused = await initiate(provider({ apiKey: badKey }), 27).catch((error: Error) => error);
      expect(refused.message).toMatch(
        /^Paylink refused the API key while creating the payment: set the provider's apiKey/,
      );
      expect(refused.message).not.toContain(badKey);
      const down = await initiate(provider({ apiUrl: `http://127.0.0.1:${await freePort()}` }), 27).catch(
        (error: Error) => error,
      );
      expect(down.message).toMatch(
        /^Paylink at http:\/\/127\.0\.0\.1:\d+ did not answer \(CONNECTION_ERROR\) while creating the payment\. Check the provider's apiUrl/,
      );
      const currency = await initiate(provider(), 27, 'xts').catch((error: Error) => error);
      expect(currency.message).toMatch(/^Paylink cannot take this currency now while creating the payment/);
      // And a test key where a live one is expected is refused at boot, before any shopper meets it.
      expect(() => provider({ apiKey: 'sk_test_abc' })).toThrow(
        /apiKey is a test key \(sk_test_ or rk_test_\) but testMode is off/,
      );
    });

    it('acts only on a webhook that verifies, once: forged, stale and replayed ones are not_supported', async () => {
      const service = provider();
      const body = JSON.stringify({
        id: 'evt_direct',
        event: 'payment.paid',
        payment_id: 'p',
        status: 'paid',
        amount: '27.00',
        usdc_amount: '27.00',
        amount_received: '27.00',
        metadata: { session_id: 'payses_1' },
      });
      const hook = (headers: Record<string, string>) =>
        service.getWebhookActionAndData({ data: JSON.parse(body), rawData: Buffer.from(body), headers });
      const signed = signWebhook({
        id: 'evt_direct',
        timestamp: new Date(),
        body,
        secrets: [paylink.webhookSecret],
      });
      const forged = signWebhook({
        id: 'evt_direct',
        timestamp: new Date(),
        body,
        secrets: [`whsec_${randomBytes(24).toString('base64')}`],
      });
      const stale = signWebhook({
        id: 'evt_direct',
        timestamp: new Date(Date.now() - 600_000),
        body,
        secrets: [paylink.webhookSecret],
      });
      expect(await hook(forged)).toStrictEqual({ action: 'not_supported' });
      expect(await hook(stale)).toStrictEqual({ action: 'not_supported' });
      expect(await hook(signed)).toStrictEqual({
        action: 'authorized',
        data: { session_id: 'payses_1', amount: '27.00' },
      });
      expect(await hook(signed)).toStrictEqual({ action: 'not_supported' });
    });
  });

  describe("the refunds kept on a Medusa payment's data, as refund.* webhooks bring them", () => {
    // The plugin's pure part, as built for its package (require), without Paylink.
    type Refund = Json;
    const fold = () =>
      createRequire(import.meta.url)('../../packages/medusa/.medusa/server/src/refunds/refundEntries.js') as {
        refundEntry(refund: Refund, known?: Json): Json;
        withRefund(entries: unknown[], refund: Refund): Json[] | undefined;
      };
    const created: Refund = {
      refund_id: 'rf_1',
      payment_id: 'pay_1',
      status: 'awaiting_address',
      amount: '10.00',
      currency: 'USDC',
      requested_amount: '10',
      requested_currency: 'USD',
      address: null,
      amount_sent: '0.00',
      txid: null,
      claim_url: 'http://checkout.test/refunds/rf_1',
    };
    const address = '0x1111111111111111111111111111111111111111';
    // Once claimed, Paylink's answer no longer carries the claim link.
    const { claim_url: _, ...claimed } = created;
    const refunded: Refund = {
      ...claimed,
      status: 'refunded',
      address,
      amount_sent: '10.00',
      txid: `0x${'ab'.repeat(32)}`,
      deposit_address: '0x2222222222222222222222222222222222222222',
    };

    it('brings the refund up to date in its place, keeping the claim link the API no longer shows', () => {
      const { refundEntry, withRefund } = fold();
      const other = refundEntry({ ...created, refund_id: 'rf_0' });
      expect(withRefund([other, refundEntry(created)], refunded)).toStrictEqual([
        other,
        {
          refund_id: 'rf_1',
          status: 'refunded',
          amount: '10.00',
          requested_amount: '10',
          requested_currency: 'USD',
          claim_url: 'http://checkout.test/refunds/rf_1',
          address,
          deposit_address: '0x2222222222222222222222222222222222222222',
          amount_sent: '10.00',
          txid: refunded.txid,
        },
      ]);
      // A refund the payment does not hold (made outside Medusa) is not added.
      expect(withRefund([other], refunded)).toBeUndefined();
    });

    it('never puts back an earlier state read before a later one was stored (events out of order)', () => {
      const { refundEntry, withRefund } = fold();
      const stored = withRefund([refundEntry(created)], refunded)!;
      expect(withRefund(stored, { ...claimed, status: 'awaiting_funds', address })).toBeUndefined();
    });
  });

  it('ignores a forged webhook, one signed too long ago and a replay: nothing changes', async () => {
    const email = `forged-${randomBytes(3).toString('hex')}@shop.test`;
    const { cartId, collectionId } = await cartAtPayment(email);
    const session = (
      (await startSession(collectionId, cartId, email)).body.payment_collection.payment_sessions as Json[]
    )[0]!;
    const body = (id: string) =>
      JSON.stringify({
        id,
        event: 'payment.paid',
        payment_id: session.data.payment_id,
        status: 'paid',
        amount: '27.00',
        currency: 'USD',
        usdc_amount: '27.00',
        amount_received: '27.00',
        metadata: { cart_id: cartId, session_id: session.id },
      });
    const post = (headers: Record<string, string>, text: string) =>
      fetch(`${store.url}${HOOK}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: text,
      });

    const forgedSecret = `whsec_${randomBytes(24).toString('base64')}`;
    const forged = body('evt_forged');
    await post(
      signWebhook({ id: 'evt_forged', timestamp: new Date(), body: forged, secrets: [forgedSecret] }),
      forged,
    );
    const stale = body('evt_stale');
    const old = new Date(Date.now() - 10 * 60_000);
    await post(
      signWebhook({ id: 'evt_stale', timestamp: old, body: stale, secrets: [paylink.webhookSecret] }),
      stale,
    );

    const log = await eventually(
      async () => store.output(),
      (text) =>
        text.includes('No signature matches the secret') &&
        text.includes('webhook-timestamp is too far from now'),
    );
    expect(log).toContain('Paylink webhook ignored: No signature matches the secret');
    expect(log).toContain('Paylink webhook ignored: webhook-timestamp is too far from now');
    expect(await orderOf(email)).toBeUndefined();
    expect((await sessionsOf(cartId)).map((s) => s.status)).toStrictEqual(['pending']);
  });

  it('makes one Paylink payment for a double click on "pay"', async () => {
    const email = `double-${randomBytes(3).toString('hex')}@shop.test`;
    const { cartId, collectionId } = await cartAtPayment(email);
    const answers = await Promise.all([
      startSession(collectionId, cartId, email),
      startSession(collectionId, cartId, email),
    ]);
    expect(answers.map((a) => a.status)).toContain(200);
    const payments = (await paylinkApi(`/payments/api/payments/?order_id=${cartId}`)).body.payments as Json[];
    expect(payments).toHaveLength(1);
    // Whichever session Medusa kept, it sends the shopper to that one payment.
    const kept = await sessionsOf(cartId);
    expect(kept.length).toBeGreaterThan(0);
    for (const session of kept) {
      expect(session.data.payment_url).toBe(`${paylink.checkoutUrl}/pay/${payments[0]!.payment_id}`);
    }
  });

  it('ends with the order paid when the webhook is dropped: the plugin asks Paylink itself', async () => {
    const email = `dropped-${randomBytes(3).toString('hex')}@shop.test`;
    const { cartId, collectionId } = await cartAtPayment(email);
    const session = (
      (await startSession(collectionId, cartId, email)).body.payment_collection.payment_sessions as Json[]
    )[0]!;
    relay.drop(true);
    try {
      await runCli(['sandbox', 'pay', session.data.payment_id], paylink.env);
      await eventually(
        async () =>
          relay.deliveries.some(
            (d) => d.event.event === 'payment.paid' && d.event.payment_id === session.data.payment_id,
          ),
        Boolean,
      );
      // No webhook reached Medusa and no shopper came back: the scheduled job found it paid.
      const order = await eventually(
        () => orderOf(email),
        (o) => o?.payment_status === 'captured',
      );
      expect(order?.payment_status).toBe('captured');
      expect(order!.payment_collections[0].payments[0].data.payment_id).toBe(session.data.payment_id);
    } finally {
      relay.drop(false);
    }
  });
});
