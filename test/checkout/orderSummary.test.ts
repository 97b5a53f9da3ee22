import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptEmail } from '../../src/adapters/email/receiptEmail.ts';
import type { ReceiptSettings } from '../../src/app/email/receipts.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ChainHarness, startChainHarness, USDC } from '../helpers/chainHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { pdfText } from '../helpers/pdfText.ts';

const CHECKOUT_URL = 'https://pay.shop.example';
const receipts: ReceiptSettings = {
  template: receiptEmail,
  messageDomain: 'shop.example',
  checkoutUrl: CHECKOUT_URL,
  explorerUrl: () => 'https://polygonscan.com',
};
const SOLD = {
  title: 'Bestellung 1042',
  description: 'Frisch geröstet <am Montag>',
  lineItems: [
    { name: 'Espressobohnen 1 kg', quantity: '2', unit_price: '24.50' },
    { name: 'Versand', quantity: '1', unit_price: '5.00' },
  ],
};

/**
 * What is bought (issue 38, decision 0051) where the customer reads it, on a real chain and a real socket: the
 * checkout page, then once paid the receipt page, its e-mail and its PDF, each with the title, the description
 * and every line (quantity × unit price, line total) in the price's currency and the reader's language.
 */
describe.each(dialects)('what is bought, shown on %s', (dialect) => {
  let h: ChainHarness;
  let checkout: FastifyInstance;
  let origin: string;
  const { logger } = capturingLogger();

  beforeAll(async () => {
    h = await startChainHarness(dialect, {}, { receipts });
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger,
      network: { name: 'Polygon', chainId: h.anvil.chain.id, explorerUrl: '' },
    });
    await checkout.listen({ host: '127.0.0.1', port: 0 });
    const address = checkout.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    origin = `http://127.0.0.1:${address.port}`;
  }, 120_000);
  afterAll(async () => {
    await checkout?.close();
    await h?.close();
  });

  const german = { headers: { 'accept-language': 'de' } };

  async function receiptToken(payment: Payment): Promise<string> {
    const row = await h.database.handle.db
      .selectFrom('payments')
      .select('receipt_token')
      .where('id', '=', payment.id)
      .executeTakeFirstOrThrow();
    if (!row.receipt_token) throw new Error('no receipt');
    return row.receipt_token;
  }

  it('shows the title, description and lines on the checkout, the receipt page, its e-mail and its PDF', async () => {
    const payment = await h.createPayment('54.00', 'EUR', {
      ...SOLD,
      customerEmail: 'jonas@example.de',
      customerLanguage: 'de',
    });
    const page = await (await fetch(`${origin}/pay/${payment.id}`, german)).text();
    expect(page).toContain('<section class="order" aria-label="Ihre Bestellung">');
    expect(page).toContain('<h2>Bestellung 1042</h2>');
    // The merchant's words are text, never markup.
    expect(page).toContain('<p class="description">Frisch geröstet &lt;am Montag&gt;</p>');
    expect(page).toContain(
      '<tr><th scope="row">Espressobohnen 1 kg<span class="each">2 × 24,50 EUR</span></th><td>49,00 EUR</td></tr>',
    );
    expect(page).toContain(
      '<tr><th scope="row">Versand<span class="each">1 × 5,00 EUR</span></th><td>5,00 EUR</td></tr>',
    );
    expect(Buffer.byteLength(page)).toBeLessThan(60_000);

    await h.pay(payment.deposit!.depositAddress, USDC('58.32'));
    await h.poll();
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('paid');
    const token = await receiptToken(payment);

    const receipt = await (await fetch(`${origin}/receipts/${token}`, german)).text();
    expect(receipt).toContain('<dt>Kauf</dt><dd>Bestellung 1042</dd>');
    expect(receipt).toContain('<dt>Details</dt><dd>Frisch geröstet &lt;am Montag&gt;</dd>');
    expect(receipt).toContain('<dt>Espressobohnen 1 kg</dt><dd>2 × 24,50 EUR = 49,00 EUR</dd>');
    expect(receipt).toContain('<dt>Versand</dt><dd>1 × 5,00 EUR = 5,00 EUR</dd>');

    const [mail] = await h.stores.emails.list({ paymentId: payment.id, limit: 10 });
    expect(mail!.text).toContain('Kauf: Bestellung 1042');
    expect(mail!.text).toContain('Espressobohnen 1 kg: 2 × 24,50 EUR = 49,00 EUR');
    expect(mail!.html).toContain('Versand');
    expect(mail!.html).toContain('1 × 5,00 EUR = 5,00 EUR');

    const pdf = pdfText(Buffer.from(await (await fetch(`${origin}/receipts/${token}/pdf`)).arrayBuffer()));
    const text = pdf.join('\n');
    expect(text).toContain('KaufBestellung 1042');
    expect(text).toContain('Artikel');
    expect(text).toContain('Espressobohnen 1 kg2 × 24,50 EUR = 49,00 EUR');
    expect(text).toContain('Versand1 × 5,00 EUR = 5,00 EUR');
  }, 120_000);

  it('shows no summary for a payment that says nothing of what it sells', async () => {
    const payment = await h.createPayment('3.00', 'USDC');
    const page = await (await fetch(`${origin}/pay/${payment.id}`)).text();
    expect(page).toContain('Payment to');
    expect(page).not.toContain('class="order"');
  }, 120_000);
});
