/**
 * The checkout app over app.inject, on every database dialect: headers on every response, what the page and
 * its JSON show (and never show), escaping of merchant-supplied text, languages, the 404 page, and the stages
 * a payment goes through as transfers are recorded.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eip681TransferLink } from '../../src/adapters/web/eip681.ts';
import type { CheckoutNetwork } from '../../src/adapters/web/network.ts';
import { qrSvg } from '../../src/adapters/web/qrCode.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/adapters/web/securityHeaders.ts';
import type { TransferRecord } from '../../src/app/chain/ports.ts';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

const SANDBOX: CheckoutNetwork = { name: 'Sandbox (local anvil)', chainId: 31337, explorerUrl: '' };
const HOSTILE_NAME = `<script>alert("pwned")</script><img src=x onerror=alert(1)> & 'Quotes' Shop`;
const CUSTOMER_EMAIL = 'ann.private@example.com';
const ORDER_ID = 'internal-order-7731';
const TTL_MS = 60 * 60_000;

const EXPECTED_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

describe.each(dialects)('checkout on %s', (dialect) => {
  let h: ApiHarness;
  let checkout: FastifyInstance;
  let apiKey: string;
  let hostileKey: string;
  let blockNumber = 100n;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    apiKey = (await h.merchant({ name: 'Corner Café' })).apiKey;
    hostileKey = (await h.merchant({ name: HOSTILE_NAME })).apiKey;
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: SANDBOX,
    });
  });
  afterAll(async () => {
    await checkout?.close();
    await h?.close();
  });

  /** A payment created through the merchant API, as a merchant would. */
  async function createPayment(
    body: Record<string, unknown> = {},
    key = apiKey,
  ): Promise<{ id: string; payment: Payment; url: string }> {
    const response = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      payload: JSON.stringify({
        amount: '25.00',
        currency: 'EUR',
        customer_email: CUSTOMER_EMAIL,
        order_id: ORDER_ID,
        ...body,
      }),
    });
    expect(response.statusCode).toBe(201);
    const { payment_id: id, payment_url: paymentUrl } = response.json();
    const payment = await h.stores.payments.findById(id);
    // payment_url is {checkout_url}/pay/{id}: the path this app serves.
    return { id, payment: payment!, url: new URL(paymentUrl).pathname };
  }

  /** Records a transfer into the payment's deposit address the way the chain watcher does. */
  async function recordTransfer(
    payment: Payment,
    amountBaseUnits: bigint,
    options: { final: boolean; txHash?: string; blockTimestamp?: Date },
  ): Promise<string> {
    blockNumber += 1n;
    const blockHash = `0x${blockNumber.toString(16).padStart(64, '0')}`;
    const txHash = options.txHash ?? `0x${(blockNumber * 7n).toString(16).padStart(64, 'a')}`;
    const transfer: TransferRecord = {
      id: `${TEST_CHAIN.chainId}:${blockHash}:0`,
      chainId: TEST_CHAIN.chainId,
      paymentId: payment.id,
      txHash,
      blockHash,
      blockNumber,
      logIndex: 0,
      blockTimestamp: options.blockTimestamp ?? h.clock.now(),
      tokenAddress: TEST_CHAIN.tokenAddress.toLowerCase(),
      tokenSymbol: 'USDC',
      fromAddress: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
      toAddress: payment.deposit!.depositAddress.toLowerCase(),
      amountBaseUnits,
      final: options.final,
      orphaned: false,
    };
    const now = h.clock.now();
    await h.stores.ledger.transaction(async (tx) =>
      refreshPayments(tx, await tx.insertTransfers([transfer]), now),
    );
    return txHash;
  }

  async function finalizeAll(): Promise<void> {
    const now = h.clock.now();
    await h.stores.ledger.transaction(async (tx) =>
      refreshPayments(tx, await tx.markFinal(TEST_CHAIN.chainId, blockNumber), now),
    );
  }

  const get = (url: string, headers: Record<string, string> = {}) =>
    checkout.inject({ method: 'GET', url, headers });
  const status = async (id: string) => {
    const response = await get(`/pay/${id}/status.json`);
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  /** The one stage section the page shows (the others carry `hidden`). */
  const visibleStages = (page: string) =>
    [...page.matchAll(/<section class="stage[^"]*" data-stage="(\w+)"[^>]*?(hidden)?>/g)]
      .filter((match) => match[2] === undefined)
      .map((match) => match[1]);

  describe('the page', () => {
    it('shows merchant, price, exact USDC amount, network, token, deposit address and the EIP-681 link', async () => {
      const { payment, url } = await createPayment();
      const response = await get(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      const page = response.body;
      const deposit = payment.deposit!;
      expect(page).toContain('<h1>Corner Café</h1>');
      expect(page).toContain('<strong>25.00 EUR</strong>');
      // 25.00 EUR × 1.08 = 27.00 USDC
      expect(page).toContain('<span id="amount" data-field="remaining" data-value="27.00">27.00</span> USDC');
      // The rate and how long it holds, and the exchange fee, up front.
      expect(page).toContain(
        `25.00 EUR = 27.00 USDC at 1.08 EUR/USDC, until <time datetime="${payment.expiresAt.toISOString()}" data-moment="time">`,
      );
      expect(page).toContain(
        'It deducts its withdrawal fee from what arrives: send the amount shown plus any fee.',
      );
      expect(page).toMatch(/<link rel="icon" href="\/favicon\.svg\?v=[0-9a-f]{12}" type="image\/svg\+xml">/);
      expect(page).toContain('Sandbox (local anvil) · chain ID 31337');
      expect(page).toContain(
        `<code class="address small" id="token-address">${TEST_CHAIN.tokenAddress}</code>`,
      );
      expect(page).toContain(`<code id="deposit-address" class="address">${deposit.depositAddress}</code>`);
      const link = `ethereum:${TEST_CHAIN.tokenAddress}@31337/transfer?address=${deposit.depositAddress}&uint256=27000000`;
      expect(page).toContain(`href="${link.replace('&', '&amp;')}"`);
      expect(page).toContain('Send only USDC on Sandbox (local anvil)');
      expect(page).toContain(`datetime="${payment.expiresAt.toISOString()}">1:00:00</time>`);
      expect(visibleStages(page)).toEqual(['pay']);
    });

    it('carries no inline script or style, only its own assets', async () => {
      const { url } = await createPayment();
      const page = (await get(url)).body;
      const scripts = [...page.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts).toHaveLength(1);
      expect(scripts[0]).toMatch(/^<script src="\/assets\/checkout\.js\?v=[0-9a-f]{12}" defer>$/);
      expect(page).not.toMatch(/<script\b[^>]*>[^<]/); // no inline body
      expect(page).not.toMatch(/\sstyle=|<style\b|\son\w+=/i);
      expect(page).not.toMatch(/https?:\/\/(?!pay\.example|shop\.example)/); // nothing fetched elsewhere
    });

    it('never shows the customer e-mail, the order id, webhook URL, payout wallet or commission', async () => {
      const { id, url, payment } = await createPayment({
        webhook_url: 'https://hooks.example.test/secret-hook',
      });
      for (const body of [(await get(url)).body, (await get(`/pay/${id}/status.json`)).body]) {
        expect(body).not.toContain(CUSTOMER_EMAIL);
        expect(body).not.toContain(ORDER_ID);
        expect(body).not.toContain('secret-hook');
        expect(body).not.toContain('merchant.example.test');
        expect(body.toLowerCase()).not.toContain(payment.payoutAddress.toLowerCase());
        expect(body).not.toMatch(/commission|payout/i);
      }
    });

    it('writes numbers and times in the page language, and copies the amount as a wallet reads it', async () => {
      const { url, payment } = await createPayment({ amount: '1234.5' });
      const cases = [
        ['fr', '1\u202f333,26', '1\u202f234,50 EUR', '1,08 EUR/USDC'],
        ['de', '1.333,26', '1.234,50 EUR', '1,08 EUR/USDC'],
        ['es', '1333,26', '1234,50 EUR', '1,08 EUR/USDC'],
        ['en', '1,333.26', '1,234.50 EUR', '1.08 EUR/USDC'],
      ] as const;
      for (const [language, usdc, price, rate] of cases) {
        const page = (await get(`${url}?lang=${language}`)).body;
        expect(page, language).toContain(`data-value="1333.26">${usdc}</span>`);
        expect(page, language).toContain(`<strong>${price}</strong>`);
        expect(page, language).toContain(rate);
      }
      expect((await get(`${url}?lang=de`)).body).toContain(
        `1.234,50 EUR = 1.333,26 USDC zum Kurs von 1,08 EUR/USDC, gültig bis <time datetime="${payment.expiresAt.toISOString()}" data-moment="time">`,
      );
      // A USDC price has no rate to show.
      const usdcPage = (await get((await createPayment({ amount: '10', currency: 'USDC' })).url)).body;
      expect(usdcPage).not.toContain('data-rate');
    });

    it('serves a favicon, and stays small: page, script, stylesheet and icon under 60 KB', async () => {
      const { id, url } = await createPayment();
      const page = await get(url);
      const icon = await get('/favicon.svg');
      expect(icon.statusCode).toBe(200);
      expect(icon.headers['content-type']).toBe('image/svg+xml');
      let total = page.rawPayload.length + icon.rawPayload.length;
      for (const asset of ['/assets/checkout.js', '/assets/checkout.css', `/pay/${id}/qr.svg`])
        total += (await get(asset)).rawPayload.length;
      expect(total).toBeLessThanOrEqual(60 * 1024);
    });

    it('escapes a hostile merchant name everywhere it appears', async () => {
      const { url, payment } = await createPayment(
        { return_url: 'https://shop.example.test/back?a=1&b="x"' },
        hostileKey,
      );
      await recordTransfer(payment, payment.quote.usdcBaseUnits, { final: true });
      const page = (await get(url)).body;
      expect(page).not.toContain('<script>alert');
      expect(page).not.toContain('<img src=x');
      expect(page).not.toContain(`'Quotes'`);
      const escaped =
        '&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &#39;Quotes&#39; Shop';
      expect(page).toContain(`<h1>${escaped}</h1>`);
      expect(page).toContain(`<title>Pay ${escaped}</title>`);
      expect(page).toContain(`Return to ${escaped}</a>`);
      // The return URL is merchant-supplied too: its & is escaped in the attribute, its quotes percent-encoded.
      expect(page).toContain('href="https://shop.example.test/back?a=1&amp;b=%22x%22"');
    });

    it('answers every response with the safety headers, the page and JSON uncached', async () => {
      const { id, url } = await createPayment();
      for (const path of [
        url,
        `/pay/${id}/status.json`,
        `/pay/${id}/qr.svg`,
        '/assets/checkout.js',
        '/assets/checkout.css',
        '/pay/00000000-0000-4000-8000-000000000000',
        '/nothing-here',
      ]) {
        const response = await get(path);
        expect(response.headers, path).toMatchObject(EXPECTED_HEADERS);
      }
      // Wallet icons announced through EIP-6963 are data: URIs; nothing else from outside the page.
      expect(CONTENT_SECURITY_POLICY).toContain("img-src 'self' data:;");
      expect((await get(url)).headers['cache-control']).toBe('no-store');
      expect((await get(`/pay/${id}/status.json`)).headers['cache-control']).toBe('no-store');
      expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
      expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
      expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
      expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe');
    });

    it('serves its script and stylesheet itself, cached for good under their content hash', async () => {
      const page = (await get((await createPayment()).url)).body;
      const scriptUrl = /src="(\/assets\/checkout\.js\?v=\w+)"/.exec(page)![1]!;
      const styleUrl = /href="(\/assets\/checkout\.css\?v=\w+)"/.exec(page)![1]!;
      const script = await get(scriptUrl);
      expect(script.statusCode).toBe(200);
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(script.body).toContain('eth_sendTransaction');
      const style = await get(styleUrl);
      expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
      // An old or missing version is served too, but only briefly cached.
      expect((await get('/assets/checkout.js?v=old')).headers['cache-control']).toBe('public, max-age=300');
    });

    it('serves one status polling loop, the same in the payment page script and the refund page script', async () => {
      const scripts = await Promise.all(['/assets/checkout.js', '/assets/refund.js'].map((url) => get(url)));
      const loops = scripts.map((script) => script.body.match(/function followStatus\(/g)?.length ?? 0);
      expect(loops).toEqual([1, 1]);
      // Each page's own part hands its status to the shared loop: neither asks for the status itself.
      const ownParts = scripts.map((script) =>
        script.body.slice(script.body.indexOf('function followStatus(')),
      );
      const loopText = (body: string) => body.slice(0, body.indexOf('\n}\n') + 2);
      expect(loopText(ownParts[0]!)).toBe(loopText(ownParts[1]!));
      for (const script of scripts) expect(script.body).not.toContain('fetch(config.statusUrl');
    });

    it('draws the QR code of the EIP-681 request, and of the address alone', async () => {
      const { id, payment } = await createPayment();
      const deposit = payment.deposit!;
      const qr = await get(`/pay/${id}/qr.svg?amount=1`);
      expect(qr.statusCode).toBe(200);
      expect(qr.headers['content-type']).toBe('image/svg+xml');
      const link = eip681TransferLink({
        tokenAddress: deposit.tokenAddress,
        chainId: 31337,
        recipient: deposit.depositAddress,
        amountBaseUnits: 27_000_000n,
      });
      // The `amount` query is only a cache-buster: the code is always the server's own request.
      expect(qr.body).toBe(await qrSvg(link));
      expect((await get(`/pay/${id}/qr.svg?kind=address`)).body).toBe(await qrSvg(deposit.depositAddress));
    });
  });

  describe('languages', () => {
    it('speaks French, German and Spanish from Accept-Language, English otherwise', async () => {
      const { url } = await createPayment();
      const cases: [string, string, string][] = [
        ['fr-CH, fr;q=0.9, en;q=0.8', 'fr', 'Montant à envoyer'],
        ['de-DE,de;q=0.9', 'de', 'Zu sendender Betrag'],
        ['es-419,es;q=0.9', 'es', 'Importe a enviar'],
        ['it-IT, ja;q=0.5', 'en', 'Amount to send'],
        ['en;q=0.2, de;q=0.8', 'de', 'Zu sendender Betrag'],
      ];
      for (const [header, language, text] of cases) {
        const response = await get(url, { 'accept-language': header });
        expect(response.body, header).toContain(`<html lang="${language}">`);
        expect(response.body, header).toContain(text);
        expect(response.headers['content-language']).toBe(language);
        expect(response.headers.vary).toMatch(/accept-language/i);
      }
    });

    it('lets the customer pick a language with ?lang, and ignores an unknown one', async () => {
      const { url } = await createPayment();
      const german = await get(`${url}?lang=de`, { 'accept-language': 'fr' });
      expect(german.body).toContain('<html lang="de">');
      expect(german.body).toContain('<a href="?lang=fr" hreflang="fr" lang="fr">Français</a>');
      expect((await get(`${url}?lang=xx`, { 'accept-language': 'es' })).body).toContain('<html lang="es">');
    });
  });

  describe('not found', () => {
    it('gives the same HTML 404 page for an unknown, a malformed and a hostile id', async () => {
      const pages = [];
      for (const path of [
        '/pay/00000000-0000-4000-8000-000000000000',
        '/pay/not-a-uuid',
        `/pay/${encodeURIComponent("1' or '1'='1")}`,
        `/pay/${encodeURIComponent('<script>x</script>')}`,
        '/pay/',
        '/',
      ]) {
        const response = await get(path);
        expect(response.statusCode, path).toBe(404);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.headers).toMatchObject(EXPECTED_HEADERS);
        pages.push(response.body);
      }
      expect(pages[0]).toContain('<h1 id="title">Payment not found</h1>');
      expect(pages[0]).not.toContain('<script');
      expect(new Set(pages).size).toBe(1);
      expect((await get('/pay/nope', { 'accept-language': 'de' })).body).toContain('Zahlung nicht gefunden');
    });

    it('answers the JSON of an unknown payment with a JSON 404 that says nothing more', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
        const response = await get(`/pay/${id}/status.json`);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toStrictEqual({ error: 'Payment not found', code: 'NOT_FOUND' });
      }
    });

    it('finds an id written in capitals, as the API does', async () => {
      const { id } = await createPayment();
      expect((await get(`/pay/${id.toUpperCase()}`)).statusCode).toBe(200);
    });
  });

  describe('stages as transfers arrive', () => {
    it('status.json has exactly the public fields', async () => {
      const { id, payment } = await createPayment();
      expect(await status(id)).toStrictEqual({
        payment_id: id,
        status: 'pending',
        stage: 'pay',
        usdc_amount: '27.00',
        amount_received: '0.00',
        amount_detected: '0.00',
        amount_remaining: '27.00',
        amount_remaining_base_units: '27000000',
        amount_overpaid: '0.00',
        transfers: [],
        expires_at: payment.expiresAt.toISOString(),
        seconds_left: 3600,
        paid_at: null,
        late: false,
        txid: null,
        tx_url: null,
        payment_link: `ethereum:${TEST_CHAIN.tokenAddress}@31337/transfer?address=${payment.deposit!.depositAddress}&uint256=27000000`,
        // One network where nothing offers another: the payment's own (decision 0033).
        networks: [
          {
            chain_id: 31337,
            payment_link: `ethereum:${TEST_CHAIN.tokenAddress}@31337/transfer?address=${payment.deposit!.depositAddress}&uint256=27000000`,
          },
        ],
      });
    });

    it('pending → partial (remaining shown, QR for the rest) → confirming → paid with txid and return link', async () => {
      const { id, url, payment } = await createPayment({ return_url: 'https://shop.example.test/thanks' });

      await recordTransfer(payment, 10_000_000n, { final: false });
      expect(await status(id)).toMatchObject({
        status: 'processing',
        stage: 'pay',
        amount_detected: '10.00',
        amount_received: '0.00',
        amount_remaining: '17.00',
        payment_link: expect.stringMatching(/&uint256=17000000$/),
      });
      let page = (await get(url)).body;
      expect(visibleStages(page)).toEqual(['pay']);
      expect(page).toMatch(/<div class="notice" data-partial>/);
      expect(page).toContain(
        '<strong class="nowrap"><span data-field="remaining">17.00</span> USDC</strong>',
      );
      expect(page).toMatch(/<p data-partial-confirming>/); // part of it still awaits finality

      await finalizeAll();
      const first = `0x${(blockNumber * 7n).toString(16).padStart(64, 'a')}`;
      const last = await recordTransfer(payment, 17_000_000n, { final: false });
      expect(await status(id)).toMatchObject({
        status: 'processing',
        stage: 'confirming',
        amount_remaining: '0.00',
      });
      expect(visibleStages((await get(url)).body)).toEqual(['confirming']);

      await finalizeAll();
      expect(await status(id)).toMatchObject({
        status: 'paid',
        stage: 'paid',
        amount_received: '27.00',
        txid: last,
        tx_url: null, // the sandbox has no explorer
        paid_at: h.clock.now().toISOString(),
        amount_overpaid: '0.00',
        transfers: [
          { txid: first, amount: '10.00', final: true, tx_url: null },
          { txid: last, amount: '17.00', final: true, tx_url: null },
        ],
      });
      page = (await get(url)).body;
      expect(visibleStages(page)).toEqual(['paid']);
      expect(page).toContain('Payment complete');
      // Both transfers on the paid screen (no explorer link on the sandbox), and no overpayment stated.
      const paid = page.slice(page.indexOf('data-stage="paid"'), page.indexOf('data-stage="expired"'));
      expect(paid).toContain(`<code class="hash" data-t="txid">${first}</code>`);
      expect(paid).toContain(`<code class="hash" data-t="txid">${last}</code>`);
      expect(paid).toMatch(/<a data-t="link" href="#" hidden>/);
      expect(paid).toMatch(/<p class="notice" data-overpaid hidden>/);
      expect(page).toContain(
        '<a class="button primary" href="https://shop.example.test/thanks">Return to Corner Café</a>',
      );
    });

    it('names a paid price in the currency it was set in, with the USDC beside it, in the page’s language', async () => {
      const { url, payment } = await createPayment({ amount: '10.00' });
      await recordTransfer(payment, payment.quote.usdcBaseUnits, { final: true });
      const english = (await get(url)).body;
      expect(english).toContain(
        'Corner Café has received your payment of 10.00 EUR (<strong class="nowrap"><span data-field="received">10.80</span> USDC</strong>). Thank you!',
      );
      const german = (await get(`${url}?lang=de`)).body;
      expect(german).toContain(
        'Corner Café hat Ihre Zahlung von 10,00 EUR (<strong class="nowrap"><span data-field="received">10,80</span> USDC</strong>) erhalten.',
      );
      // A price in USDC is named once.
      const usdc = await createPayment({ amount: '12.00', currency: 'USDC' });
      await recordTransfer(usdc.payment, usdc.payment.quote.usdcBaseUnits, { final: true });
      expect((await get(usdc.url)).body).toContain(
        'Corner Café has received your payment of <strong class="nowrap"><span data-field="received">12.00</span> USDC</strong>. Thank you!',
      );
    });

    it('links each transfer to the network explorer when there is one, and states an overpayment', async () => {
      const polygonCheckout = await buildCheckoutServer({
        ...h.stores,
        clock: h.clock,
        logger: capturingLogger().logger,
        network: { name: 'Polygon', chainId: 31337, explorerUrl: 'https://polygonscan.com' },
      });
      try {
        const { id, payment } = await createPayment();
        const tx = await recordTransfer(payment, 20_000_000n, { final: true });
        const extra = await recordTransfer(payment, 17_000_000n, { final: true });
        const response = await polygonCheckout.inject({ method: 'GET', url: `/pay/${id}/status.json` });
        expect(response.json()).toMatchObject({
          tx_url: `https://polygonscan.com/tx/${extra}`,
          amount_overpaid: '10.00',
          transfers: [
            { txid: tx, amount: '20.00', tx_url: `https://polygonscan.com/tx/${tx}` },
            { txid: extra, amount: '17.00', tx_url: `https://polygonscan.com/tx/${extra}` },
          ],
        });
        const page = (await polygonCheckout.inject({ method: 'GET', url: `/pay/${id}` })).body;
        for (const hash of [tx, extra])
          expect(page).toContain(
            `<a data-t="link" href="https://polygonscan.com/tx/${hash}">View on the block explorer</a>`,
          );
        // 37.00 sent for a 27.00 price: said plainly, without promising a refund the merchant decides.
        expect(page).toMatch(
          /<p class="notice" data-overpaid>You sent <strong class="nowrap"><span data-field="received">37\.00<\/span> USDC<\/strong>, <strong class="nowrap"><span data-field="overpaid">10\.00<\/span> USDC<\/strong> more than the price; the merchant can refund the difference\.<\/p>/,
        );
        expect(page).toContain('Polygon · chain ID 31337');
      } finally {
        await polygonCheckout.close();
      }
    });

    it('an unpaid link expires the moment its time is up; an underpaid one fails, showing what arrived', async () => {
      const unpaid = await createPayment();
      const underpaid = await createPayment();
      await recordTransfer(underpaid.payment, 5_500_000n, { final: true });
      h.clock.advance(TTL_MS);
      expect((await status(unpaid.id)).stage).toBe('pay'); // exactly at expiry: still on time
      h.clock.advance(1_000);

      expect(await status(unpaid.id)).toMatchObject({ status: 'expired', stage: 'expired', seconds_left: 0 });
      let page = (await get(unpaid.url)).body;
      expect(visibleStages(page)).toEqual(['expired']);
      expect(page).toContain('This payment link has expired');

      expect(await status(underpaid.id)).toMatchObject({
        status: 'failed',
        stage: 'failed',
        amount_received: '5.50',
        amount_remaining: '21.50',
      });
      page = (await get(underpaid.url)).body;
      expect(visibleStages(page)).toEqual(['failed']);
      expect(page).toContain('<span data-field="received">5.50</span> USDC</strong> of the');
      expect(page).toContain('<span data-field="required">27.00</span> USDC');
    });

    it('past expiry with a transfer awaiting finality: confirming, never a request for more money', async () => {
      const { id, payment } = await createPayment();
      await recordTransfer(payment, 1_000_000n, { final: false });
      h.clock.advance(TTL_MS + 1_000);
      expect(await status(id)).toMatchObject({ status: 'processing', stage: 'confirming' });
    });
  });
});
