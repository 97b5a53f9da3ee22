import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { type DashboardSession, dashboardClient } from '../helpers/dashboardClient.ts';
import { dialects } from '../helpers/database.ts';
import { payInFull } from '../helpers/webhookHarness.ts';
import { verifyAsMerchant, WebhookReceiver } from '../helpers/webhookReceiver.ts';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** A source chain whose transfers the home chain's payments count (decision 0030). */
const BASE = 8453;
const CUSTOMER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

/** A merchant's endpoint (a real HTTP server) answering every request with `status`. */
async function startReceiver(status: number): Promise<WebhookReceiver> {
  const receiver = await new WebhookReceiver().start();
  receiver.respond = () => ({ status, body: status === 200 ? 'thanks' : 'broken' });
  return receiver;
}

/**
 * The operator's console and the merchant's own screens over the real app, on each database: merchants created,
 * edited, disabled and enabled, keys rolled and secrets rotated (each shown once, each working at once), a test
 * webhook to a real receiver, list filters and search, refunds started and canceled from a payment's page,
 * failing endpoints and health.
 */
describe.each(dialects)('dashboard console on %s', (dialect) => {
  let h: ApiHarness;
  let client: ReturnType<typeof dashboardClient>;
  let ops: DashboardSession;
  let shop: { id: string; apiKey: string };

  beforeAll(async () => {
    // The receivers of this suite are on this machine: private addresses allowed, as in the sandbox.
    h = await startApiHarness(dialect, {
      env: { PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'true' },
      overrides: {
        explorers: new Map([
          [TEST_CHAIN.chainId, 'https://explorer.example/'],
          [BASE, 'https://base-explorer.example'],
        ]),
      },
    });
    client = dashboardClient(h);
    ops = await client.signedIn('ops@paylink.example', 'operator');
    shop = await h.merchant({ name: 'Corner Shop' });
  });
  afterAll(() => h?.close());

  const createPayment = async (apiKey: string, amount: string, orderId: string) => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'x-api-key': apiKey },
      payload: { amount, currency: 'USDC', order_id: orderId },
    });
    expect(response.statusCode).toBe(201);
    return (response.json() as { payment_id: string }).payment_id;
  };
  const apiStatus = async (apiKey: string) =>
    (
      await h.app.inject({
        method: 'GET',
        url: '/payments/api/convert/?amount=1&currency=USD',
        headers: { 'x-api-key': apiKey },
      })
    ).statusCode;
  /** A merchant whose webhooks go to a receiver on this machine (the harness's own merchants use https only). */
  const merchantWithReceiver = async (name: string, url: string) => {
    const m = await h.merchant({ name });
    const stored = await h.stores.merchants.find(m.id);
    await h.stores.merchants.save({ ...stored!, webhookUrl: url });
    return m;
  };
  const shownSecrets = (body: string) =>
    [...body.matchAll(/<input id="secret-\d" type="text" readonly value="([^"]+)"/g)].map((m) => m[1]!);

  it('an operator creates a merchant (refusing bad fields by name), and the key shown once works', async () => {
    const bad = await ops.post('/dashboard/merchants', {
      name: 'Bakery',
      wallet: '0x1234',
      webhook_url: 'https://bakery.example/hooks',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('wallet_address');
    expect(bad.body).toContain('value="Bakery"'); // what was typed is kept
    expect((await h.stores.merchants.list(100)).some((m) => m.name === 'Bakery')).toBe(false);

    const created = await ops.post('/dashboard/merchants', {
      name: 'Bakery',
      wallet: WALLET,
      webhook_url: 'https://bakery.example/hooks',
      commission_percent: '2.5',
      underpayment_tolerance_percent: '1',
    });
    expect(created.statusCode).toBe(200);
    expect(created.body).toContain('not shown again');
    const [apiKey, webhookSecret] = shownSecrets(created.body);
    expect(apiKey).toMatch(/^sk_live_/);
    expect(webhookSecret).toMatch(/^whsec_/);
    expect(await apiStatus(apiKey!)).toBe(200);
    const bakery = (await h.stores.merchants.list(100)).find((m) => m.name === 'Bakery')!;
    expect(bakery.commissionBps).toBe(250);
    expect(bakery.underpaymentToleranceBps).toBe(100);
    expect(h.logs()).not.toContain(apiKey);

    // The list links it; a merchant user reaches none of this.
    expect((await ops.get('/dashboard/merchants')).body).toContain(
      `href="/dashboard/merchants/${bakery.id}"`,
    );
    const merchantUser = await client.signedIn('ana@bakery.example', 'merchant', bakery.id);
    expect((await merchantUser.get('/dashboard/merchants')).statusCode).toBe(404);
    expect((await merchantUser.get(`/dashboard/merchants/${bakery.id}`)).statusCode).toBe(404);
    expect((await merchantUser.post(`/dashboard/merchants/${bakery.id}/disable`)).statusCode).toBe(404);
    expect((await h.stores.merchants.find(bakery.id))?.status).toBe('active');
  });

  it("an operator cannot make the token, the factory or a payment's deposit address a merchant's wallet", async () => {
    const paymentId = await createPayment(shop.apiKey, '3', 'deposit-as-wallet');
    const deposit = await h.stores.payments.findById(paymentId);
    const m = await h.merchant({ name: 'Tea Room' });
    const page = `/dashboard/merchants/${m.id}`;
    for (const [wallet, problem] of [
      [TEST_CHAIN.tokenAddress, 'is one of the payment network&#39;s contracts'],
      [TEST_CHAIN.factoryAddress, 'is one of the payment network&#39;s contracts'],
      [deposit!.deposit!.depositAddress, 'is a payment deposit address of this service'],
    ] as const) {
      const created = await ops.post('/dashboard/merchants', { name: 'Tea Room 2', wallet });
      expect(created.statusCode, wallet).toBe(400);
      expect(created.body).toContain(problem);
      const edited = await ops.post(page, { name: 'Tea Room', wallet });
      expect(edited.statusCode, wallet).toBe(400);
      expect(edited.body).toContain(problem);
    }
    expect((await h.stores.merchants.list(100)).some((x) => x.name === 'Tea Room 2')).toBe(false);
    expect((await h.stores.merchants.find(m.id))?.walletAddress).toBe(WALLET);
  });

  it('an operator edits, disables and enables a merchant, and rolls its key with and without a grace period', async () => {
    const m = await h.merchant({ name: 'Flower Stall' });
    const page = `/dashboard/merchants/${m.id}`;
    const tooTolerant = await ops.post(page, { name: 'Flower Stall', underpayment_tolerance_percent: '50' });
    expect(tooTolerant.statusCode).toBe(400);
    expect(tooTolerant.body).toContain('underpayment_tolerance_percent: must be at most');
    const saved = await ops.post(page, {
      name: 'Flower Stall & Co',
      wallet: WALLET,
      webhook_url: 'https://flowers.example/hooks',
      commission_percent: '3',
      underpayment_tolerance_percent: '0.5',
    });
    expect(saved.statusCode).toBe(303);
    const stored = await h.stores.merchants.find(m.id);
    expect(stored).toMatchObject({
      name: 'Flower Stall & Co',
      commissionBps: 300,
      underpaymentToleranceBps: 50,
    });
    expect((await ops.get(page)).body).toContain('Flower Stall &amp; Co');

    const user = await client.signedIn('bo@flowers.example', 'merchant', m.id);
    // Destructive, so confirmed: the page's form is styled as such and requires its box; without it, refused.
    const disableForm =
      /<form class="card stack danger" method="post" action="([^"]+)" data-confirm="[^"]+">[\s\S]*?<\/form>/.exec(
        (await ops.get(page)).body,
      );
    expect(disableForm?.[1]).toBe(`${page}/disable`);
    expect(disableForm?.[0]).toMatch(/<input type="checkbox" name="confirmed" value="yes" required>/);
    expect(disableForm?.[0]).toContain('<button type="submit" class="danger">Disable merchant</button>');
    const unconfirmed = await ops.post(`${page}/disable`);
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.body).toContain('Tick the box to confirm that the merchant should be disabled.');
    expect((await h.stores.merchants.find(m.id))?.status).toBe('active');
    expect(await apiStatus(m.apiKey)).toBe(200);
    expect((await ops.post(`${page}/disable`, { confirmed: 'yes' })).statusCode).toBe(303);
    expect(await apiStatus(m.apiKey)).toBe(401);
    expect((await user.get('/dashboard/payments')).headers.location).toBe('/dashboard/login');
    expect((await ops.get(page)).body).toContain('Enable merchant');
    expect((await ops.post(`${page}/enable`)).statusCode).toBe(303);
    expect(await apiStatus(m.apiKey)).toBe(200);

    const graceful = await ops.post(`${page}/roll-key`, { mode: 'live', grace: '24h' });
    const [second] = shownSecrets(graceful.body);
    expect(await apiStatus(second!)).toBe(200);
    expect(await apiStatus(m.apiKey)).toBe(200); // still, for a day
    const abrupt = await ops.post(`${page}/roll-key`, { mode: 'live', grace: '0' });
    expect(abrupt.body).toContain('stopped working now');
    const [third] = shownSecrets(abrupt.body);
    expect(await apiStatus(third!)).toBe(200);
    expect(await apiStatus(second!)).toBe(401);
    expect(await apiStatus(m.apiKey)).toBe(401);

    const rotated = await ops.post(`${page}/rotate-webhook-secret`);
    const [secret] = shownSecrets(rotated.body);
    expect((await h.stores.merchants.find(m.id))?.webhookSecret).toBe(secret);
    // Without the session's CSRF token nothing changes.
    expect((await ops.post(`${page}/disable`, { csrf: 'forged', confirmed: 'yes' })).statusCode).toBe(403);
    expect((await h.stores.merchants.find(m.id))?.status).toBe('active');
    expect((await ops.get('/dashboard/merchants/mch_nope')).statusCode).toBe(404);
  });

  it('a merchant rolls its own key, rotates its secret and sends a test webhook a real receiver verifies', async () => {
    const receiver = await startReceiver(200);
    try {
      const m = await merchantWithReceiver('Tea House', receiver.url());
      const user = await client.signedIn('cy@tea.example', 'merchant', m.id);
      const page = await user.get('/dashboard/developers');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(m.apiKey.slice(0, 12)); // the prefix, never the key
      expect(page.body).not.toContain(m.apiKey);
      expect(page.body).toContain(receiver.url());

      const rotated = await user.post('/dashboard/developers/rotate-webhook-secret');
      const [secret] = shownSecrets(rotated.body);
      expect(secret).toMatch(/^whsec_/);
      const sent = await user.post('/dashboard/developers/test-webhook');
      expect(sent.statusCode).toBe(200);
      expect(sent.body).toContain('Your server answered HTTP 200');
      expect(receiver.received).toHaveLength(1);
      const event = verifyAsMerchant(secret!, receiver.received[0]!) as { event: string };
      expect(event.event).toBe('webhook.test');

      const rolled = await user.post('/dashboard/developers/roll-key', { mode: 'live' });
      const [key] = shownSecrets(rolled.body);
      expect(await apiStatus(key!)).toBe(200);
      expect(await apiStatus(m.apiKey)).toBe(200); // the old one, for 24 hours
      expect(rolled.body).not.toContain(m.apiKey);
    } finally {
      await receiver.stop();
    }
  });

  it('a test webhook to a failing receiver says what it answered', async () => {
    const receiver = await startReceiver(500);
    try {
      const m = await merchantWithReceiver('Noodle Bar', receiver.url());
      const user = await client.signedIn('di@noodle.example', 'merchant', m.id);
      const sent = await user.post('/dashboard/developers/test-webhook');
      expect(sent.body).toContain('Your server answered HTTP 500');
      expect(sent.body).toContain('broken');
      expect(sent.body).not.toContain(': received.');
    } finally {
      await receiver.stop();
    }
  });

  it('filters the payments list by status, order and date, and finds one by id, deposit address or transaction', async () => {
    const m = await h.merchant({ name: 'Book Shop' });
    const user = await client.signedIn('ed@books.example', 'merchant', m.id);
    const first = await createPayment(m.apiKey, '11.00', 'book-1');
    const second = await createPayment(m.apiKey, '12.00', 'book-2');
    await payInFull(h, second);
    const foreign = await createPayment(shop.apiKey, '13.00', 'elsewhere');

    const paid = await user.get('/dashboard/payments?status=paid');
    expect(paid.body).toContain(second);
    expect(paid.body).not.toContain(first);
    const byOrder = await user.get('/dashboard/payments?order_id=book-1');
    expect(byOrder.body).toContain(first);
    expect(byOrder.body).not.toContain(second);
    const today = h.clock.now().toISOString().slice(0, 10);
    const tomorrow = new Date(h.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    expect((await user.get(`/dashboard/payments?from=${tomorrow}`)).body).toContain('No payments match');
    expect((await user.get(`/dashboard/payments?from=${today}&to=${tomorrow}`)).body).toContain(first);
    const badDate = await user.get('/dashboard/payments?from=2026-02-30');
    expect(badDate.statusCode).toBe(400);
    expect(badDate.body).toContain('from: must be a date');

    const payment = await h.stores.payments.findById(second);
    const [transfer] = await h.stores.ledger.listTransfers(second);
    for (const q of [
      second.toUpperCase(),
      payment!.deposit!.depositAddress,
      transfer!.txHash.toUpperCase().replace('0X', '0x'),
    ]) {
      const found = await user.get(`/dashboard/payments?q=${encodeURIComponent(q)}`);
      expect(found.statusCode, q).toBe(303);
      expect(found.headers.location).toBe(`/dashboard/payments/${second}`);
    }
    // Another merchant's payment is never found, by any of its names.
    const hidden = await user.get(`/dashboard/payments?q=${foreign}`);
    expect(hidden.statusCode).toBe(200);
    expect(hidden.body).toContain(`No payment matches ${foreign}`);
    // Any other word may be an order id of the merchant's (decision 0053): looked up, found or not.
    const word = await user.get('/dashboard/payments?q=hello');
    expect(word.statusCode).toBe(200);
    expect(word.body).toContain('No payment matches hello');
    const nonsense = await user.get(`/dashboard/payments?q=${'x'.repeat(256)}`);
    expect(nonsense.statusCode).toBe(400);
    expect(nonsense.body).toContain(
      'must be a payment id or reference, a deposit address, a transaction hash, a customer e-mail or an order id',
    );
    // The test-mode switch shows test payments only (this merchant has none).
    const test = await user.get('/dashboard/payments?mode=test');
    expect(test.body).toContain('Test mode');
    expect(test.body).not.toContain(second);

    // An operator reads one merchant's list by its id (a 404 for an unknown one), or every merchant's, and
    // finds any merchant's payment by its transaction.
    const onlyBooks = await ops.get(`/dashboard/payments?merchant=${m.id}`);
    expect(onlyBooks.body).toContain(second);
    expect(onlyBooks.body).not.toContain(foreign);
    expect((await ops.get('/dashboard/payments?merchant=mch_nope')).statusCode).toBe(404);
    const everyone = await ops.get('/dashboard/payments');
    expect(everyone.body).toContain(second);
    expect(everyone.body).toContain(foreign);
    const found = await ops.get(`/dashboard/payments?q=${transfer!.txHash}`);
    expect(found.headers.location).toBe(`/dashboard/payments/${second}`);
    expect((await ops.get(`/dashboard/payments?q=${foreign}`)).headers.location).toBe(
      `/dashboard/payments/${foreign}`,
    );
  });

  it("links a transfer sent on a source chain to that chain's explorer, and the home chain's to its own", async () => {
    const m = await h.merchant({ name: 'Two Chain Shop' });
    const user = await client.signedIn('fi@twochains.example', 'merchant', m.id);
    const id = await createPayment(m.apiKey, '10.00', 'two-chains-1');
    const payment = (await h.stores.payments.findById(id))!;
    const onBase = {
      id: `${BASE}:0x${randomBytes(32).toString('hex')}:0`,
      chainId: BASE,
      paymentId: id,
      txHash: `0x${randomBytes(32).toString('hex')}`,
      blockHash: `0x${randomBytes(32).toString('hex')}`,
      tokenAddress: TEST_CHAIN.tokenAddress.toLowerCase(),
      tokenSymbol: 'USDC',
      fromAddress: CUSTOMER.toLowerCase(),
      toAddress: payment.deposit!.depositAddress.toLowerCase(),
      amountBaseUnits: 4_000_000n,
      blockNumber: 7n,
      logIndex: 0,
      blockTimestamp: h.clock.now(),
      final: true,
      orphaned: false,
    };
    await h.stores.ledger.transaction(async (tx) =>
      refreshPayments(tx, await tx.insertTransfers([onBase]), h.clock.now()),
    );
    await payInFull(h, id, 6_000_000n);
    const onHome = (await h.stores.ledger.listTransfers(id)).find((t) => t.chainId === TEST_CHAIN.chainId);
    const page = await user.get(`/dashboard/payments/${id}`);
    expect(page.body).toContain(`href="https://base-explorer.example/tx/${onBase.txHash}"`);
    expect(page.body).not.toContain(`href="https://explorer.example/tx/${onBase.txHash}"`);
    expect(page.body).toContain(`href="https://explorer.example/tx/${onHome!.txHash}"`);
  });

  it('starts a refund from the payment page, shows its claim link or funding QR, and cancels it', async () => {
    const m = await h.merchant({ name: 'Shoe Shop' });
    const user = await client.signedIn('fi@shoes.example', 'merchant', m.id);
    const id = await createPayment(m.apiKey, '40.00', 'shoes-1');
    await payInFull(h, id);
    const page = await user.get(`/dashboard/payments/${id}`);
    expect(page.body).toContain('Start refund');
    expect(page.body).toMatch(/id="refund-amount" name="amount"[^>]*value="40\.00"/);
    expect(page.body).toContain('Payment <span class="reference">PL-');
    expect(page.body).toMatch(/Transfer of 40\.00 USDC seen, final/);
    // Each transaction links to the chain's explorer (one slash, however the base URL ends).
    const [paidBy] = await h.stores.ledger.listTransfers(id);
    expect(page.body).toContain(`href="https://explorer.example/tx/${paidBy!.txHash}"`);

    const tooMuch = await user.post(`/dashboard/payments/${id}/refunds`, { amount: '40.01' });
    expect(tooMuch.statusCode).toBe(409); // the API's status for REFUND_EXCEEDS_PAYMENT
    expect(tooMuch.body).toMatch(/role="alert">[^<]*40/);
    expect(tooMuch.body).toContain('value="40.01"');
    const refundsOf = async () =>
      (
        (
          await h.app.inject({
            method: 'GET',
            url: `/payments/api/refunds/?payment_id=${id}`,
            headers: { 'x-api-key': m.apiKey },
          })
        ).json() as { refunds: unknown[] }
      ).refunds.length;
    expect(await refundsOf()).toBe(0); // nothing half-written

    const linked = await user.post(`/dashboard/payments/${id}/refunds`, {
      amount: '15.00',
      reason: 'wrong size',
    });
    expect(linked.statusCode).toBe(303);
    const withLink = await user.get(`/dashboard/payments/${id}`);
    const claim = /readonly value="(https:\/\/pay\.example\.test\/refunds\/[0-9a-f-]{36})"/.exec(
      withLink.body,
    );
    expect(claim).not.toBeNull();
    expect(withLink.body).toContain('15.00 USDC');
    expect(withLink.body).toContain('awaiting address');

    expect(await refundsOf()).toBe(1);
    const addressed = await user.post(`/dashboard/payments/${id}/refunds`, {
      amount: '5.50',
      address: CUSTOMER,
    });
    expect(addressed.statusCode).toBe(303);
    const withFunding = await user.get(`/dashboard/payments/${id}`);
    expect(withFunding.body).toContain(`To <code>${CUSTOMER}</code>`);
    expect(withFunding.body).toMatch(/Fund it: send 5\.50 USDC to <code>0x[0-9a-fA-F]{40}<\/code>/);
    expect(withFunding.body).toContain('src="data:image/svg+xml;base64,');
    expect(withFunding.body).toMatch(/href="ethereum:0x[0-9a-fA-F]{40}@31337\/transfer\?/);

    // Cancel the first; a second cancel is refused in words; another merchant cannot.
    const refundId = claim![1]!.split('/').at(-1)!;
    const other = await client.signedIn('gu@corner.example', 'merchant', shop.id);
    expect((await other.post(`/dashboard/refunds/${refundId}/cancel`, { confirmed: 'yes' })).statusCode).toBe(
      404,
    );
    // Destructive, so confirmed: a red button behind a required box; without the box nothing changes.
    const cancelForm = new RegExp(
      `<form class="danger-inline" method="post" action="/dashboard/refunds/${refundId}/cancel" data-confirm="[^"]+">.*?</form>`,
    ).exec((await user.get(`/dashboard/payments/${id}`)).body)?.[0];
    expect(cancelForm).toContain(
      '<input type="checkbox" name="confirmed" value="yes" required> Yes, cancel it',
    );
    expect(cancelForm).toContain('<button type="submit" class="danger">Cancel this refund</button>');
    const unconfirmed = await user.post(`/dashboard/refunds/${refundId}/cancel`);
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.body).toContain('Tick the box to confirm that the refund should be canceled.');
    expect((await user.get(`/dashboard/payments/${id}`)).body).not.toContain('>canceled<');
    expect((await user.post(`/dashboard/refunds/${refundId}/cancel`, { confirmed: 'yes' })).statusCode).toBe(
      303,
    );
    expect((await user.get(`/dashboard/payments/${id}`)).body).toContain('canceled');
    const again = await user.post(`/dashboard/refunds/${refundId}/cancel`, { confirmed: 'yes' });
    expect(again.statusCode).toBe(409);
    // An overpaid payment offers to refund exactly the part beyond its price.
    const over = await createPayment(m.apiKey, '20.00', 'shoes-2');
    await payInFull(h, over, 20_500_000n);
    const overPage = await user.get(`/dashboard/payments/${over}`);
    expect(overPage.body).toContain('Received 20.50 USDC, of which 0.50 USDC beyond the price.');
    expect(overPage.body).toContain('Refund the 0.50 USDC beyond the price');
    expect((await user.post(`/dashboard/payments/${over}/refunds`, { amount: 'overpaid' })).statusCode).toBe(
      303,
    );
    const overRefunded = await user.get(`/dashboard/payments/${over}`);
    expect(overRefunded.body).toContain('<strong>0.50 USDC</strong>');
    expect(overRefunded.body).not.toContain('Refund the 0.50 USDC beyond the price'); // nothing more is over
    // The operator reads the refunds but gets no form to start one.
    const opsView = await ops.get(`/dashboard/payments/${id}`);
    expect(opsView.body).toContain('wrong size');
    expect(opsView.body).not.toContain('Start refund');
    expect(opsView.body).not.toContain('Cancel this refund');
  });

  it('says on a payment’s page where its payout is: not due before it is paid, then on its way', async () => {
    const m = await h.merchant({ name: 'Tea Shop' });
    const user = await client.signedIn('li@tea.example', 'merchant', m.id);
    const id = await createPayment(m.apiKey, '8.00', 'tea-1');
    const payout = async (language = 'en') => {
      const page = await user.get(`/dashboard/payments/${id}?lang=${language}`);
      return /<dt>[^<]*<\/dt><dd>([^<]*)<\/dd>\s*<\/dl>/.exec(page.body)?.[1];
    };
    expect(await payout()).toBe('not due: the payment is not paid');
    expect(await payout('fr')).toBe('pas encore due\u00a0: le paiement n&#39;est pas payé');
    await payInFull(h, id);
    expect(await payout()).toBe('on its way');
  });

  it('lists a paid payment whose refunds reached the customer as partly refunded, then refunded', async () => {
    const m = await h.merchant({ name: 'Hat Shop' });
    const user = await client.signedIn('jo@hats.example', 'merchant', m.id);
    const id = await createPayment(m.apiKey, '10.00', 'hats-1');
    await payInFull(h, id);
    const statusCell = async () => {
      const row = (await user.get('/dashboard/payments')).body.split('<tr>').find((r) => r.includes(id));
      return /<span class="status[^"]*">([^<]*)<\/span>/.exec(row ?? '')?.[1];
    };
    expect(await statusCell()).toBe('paid');
    /** A refund to a known address whose deposit has sent `amount` on to the customer. */
    const refundSent = async (amount: string, baseUnits: bigint) => {
      const refund = await h.app.inject({
        method: 'POST',
        url: '/payments/api/refunds/',
        headers: { 'x-api-key': m.apiKey },
        payload: { payment_id: id, amount, address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' },
      });
      expect(refund.statusCode).toBe(201);
      await h.database.handle.db
        .updateTable('payments')
        .set({
          status: 'paid',
          amount_received_base_units: String(baseUnits),
          merchant_paid_base_units: String(baseUnits),
          settled_base_units: String(baseUnits),
        })
        .where('id', '=', (refund.json() as { refund_id: string }).refund_id)
        .execute();
    };
    await refundSent('4.00', 4_000_000n);
    expect(await statusCell()).toBe('partly refunded');
    await refundSent('6.00', 6_000_000n);
    expect(await statusCell()).toBe('refunded');
  });

  it('shows failing webhook endpoints, worst first, and the health figures of /metrics', async () => {
    const failing = await h.merchant({ name: 'Broken Endpoint Ltd' });
    // One of its webhook endpoints (decision 0058) fails too: a row of its own.
    const endpoint = await h.app.inject({
      method: 'POST',
      url: '/payments/api/webhook_endpoints/',
      headers: { 'x-api-key': failing.apiKey },
      payload: { url: 'https://books.broken.example/paylink' },
    });
    expect(endpoint.statusCode).toBe(201);
    const id = await createPayment(failing.apiKey, '9.00', 'broken-1');
    const eventId = await payInFull(h, id);
    await h.database.handle.db
      .updateTable('events')
      .set({ delivery_status: 'failed', attempt_count: 10 })
      .where('id', '=', eventId)
      .execute();
    await h.database.handle.db
      .updateTable('webhook_deliveries')
      .set({ delivery_status: 'failed', attempt_count: 10 })
      .where('event_id', '=', eventId)
      .execute();
    const page = await ops.get('/dashboard/webhooks');
    expect(page.statusCode).toBe(200);
    const rows = page.body.split('<tr>').filter((r) => r.includes('Broken Endpoint Ltd'));
    expect(rows).toHaveLength(2);
    const row = rows.find((r) => r.includes('https://merchant.example.test/hooks'));
    expect(row).toMatch(/<td class="amount">1<\/td>\s*<td class="amount">0<\/td>/);
    const endpointRow = rows.find((r) => r.includes('https://books.broken.example/paylink'));
    expect(endpointRow).toMatch(/<td class="amount">1<\/td>\s*<td class="amount">0<\/td>/);

    const health = await ops.get('/dashboard/health');
    expect(health.statusCode).toBe(200);
    expect(health.body).toMatch(/<dt>Database<\/dt><dd>up<\/dd>/);
    expect(health.body).toMatch(/<dt>Payments by status<\/dt><dd>[^<]*paid: \d+/);
    expect(health.body).toMatch(/<dt>Webhooks by delivery<\/dt><dd>[^<]*failed: 1/);
    const merchantUser = await client.signedIn('hu@broken.example', 'merchant', failing.id);
    expect((await merchantUser.get('/dashboard/health')).statusCode).toBe(404);
    expect((await merchantUser.get('/dashboard/webhooks')).statusCode).toBe(404);
  });

  it('answers in the language asked for: Accept-Language, or ?lang= over it; English otherwise', async () => {
    const page = (url: string, language?: string) =>
      h.app.inject({ method: 'GET', url, headers: language ? { 'accept-language': language } : {} });
    const german = await page('/dashboard/login', 'de-CH,de;q=0.9,en;q=0.5');
    expect(german.body).toContain('<html lang="de">');
    expect(german.body).toContain('<h1>Anmelden</h1>');
    const spanish = await page('/dashboard/login?lang=es', 'de');
    expect(spanish.body).toContain('<h1>Iniciar sesión</h1>');
    expect((await page('/dashboard/login', 'ja')).body).toContain('<h1>Sign in</h1>');
    const wrong = await h.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://api.example.test',
        'accept-language': 'fr-FR',
      },
      payload: new URLSearchParams({
        email: 'nobody@example.test',
        password: 'not the password!',
      }).toString(),
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('E-mail, mot de passe ou code incorrect');
    // A signed-in page: the operator's console in French.
    const merchants = await ops.get('/dashboard/merchants?lang=fr');
    expect(merchants.body).toContain('<h1>Marchands</h1>');
    expect(merchants.body).toContain('Nouveau marchand');
  });
});
