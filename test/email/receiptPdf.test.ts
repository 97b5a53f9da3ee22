import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptEmail } from '../../src/adapters/email/receiptEmail.ts';
import type { ReceiptSettings } from '../../src/app/email/receipts.ts';
import { createRefund } from '../../src/app/refunds/createRefund.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ChainHarness, startChainHarness, USDC } from '../helpers/chainHarness.ts';
import { dialects } from '../helpers/database.ts';
import { solidPng, TINY_WEBP } from '../helpers/images.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { pdfContent, pdfImages, pdfText } from '../helpers/pdfText.ts';
import { refundWorkerPasses } from '../helpers/refundWorker.ts';

const CHECKOUT_URL = 'https://pay.shop.example';
const receipts: ReceiptSettings = {
  template: receiptEmail,
  messageDomain: 'shop.example',
  checkoutUrl: CHECKOUT_URL,
  explorerUrl: () => 'https://polygonscan.com',
};
/** Letters of the four languages and of latin-ext, which Noto Sans holds in two files. */
const MERCHANT = 'Café Straße Łódź — Niño';

/**
 * The PDF receipt (decision 0048) on a real chain: a payment in EUR overpaid in two transfers and the
 * overpayment refunded, its PDF fetched over a real socket with the receipt's token and read back as text.
 */
describe.each(dialects)('PDF receipts on %s', (dialect) => {
  let h: ChainHarness;
  let checkout: FastifyInstance;
  let origin: string;
  const { logger } = capturingLogger();

  beforeAll(async () => {
    h = await startChainHarness(dialect, {}, { receipts });
    await h.database.handle.db
      .updateTable('merchants')
      .set({ name: MERCHANT })
      .where('id', '=', h.merchant.id)
      .execute();
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

  async function receiptToken(paymentId: string): Promise<string> {
    const row = await h.database.handle.db
      .selectFrom('payments')
      .select('receipt_token')
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    if (!row.receipt_token) throw new Error('no receipt');
    return row.receipt_token;
  }

  async function paid(payment: Payment, ...amounts: bigint[]): Promise<`0x${string}`[]> {
    const txids: `0x${string}`[] = [];
    for (const amount of amounts) txids.push(await h.pay(payment.deposit!.depositAddress, amount));
    await h.poll();
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('paid');
    return txids;
  }

  it('lists the price, the rate, every transfer and the refund to the base unit, in the payer’s language', async () => {
    // 10.00 EUR at 1.08 is 10.80 USDC; 2.000001 more arrives in a second transfer, and is refunded.
    const payment = await h.createPayment('10.00', 'EUR', {
      customerEmail: 'jonas@example.de',
      customerLanguage: 'de',
      orderId: 'B-1042',
    });
    const [first, second] = await paid(payment, USDC('10.80'), USDC('2.000001'));
    const token = await receiptToken(payment.id);
    // Before the refund, none is listed; after it, the PDF is drawn again, not served as it was.
    const before = await fetch(`${origin}/receipts/${token}/pdf`);
    expect(pdfText(Buffer.from(await before.arrayBuffer())).join('\n')).not.toContain('Erstattungen');
    const { record } = await createRefund(
      {
        refunds: h.stores.refunds,
        clock: h.clock,
        deposits: { live: h.deposits },
        refundClaimTtlMs: 7 * 24 * 3600_000,
      },
      h.merchant.id,
      'live',
      { paymentId: payment.id, amount: 'overpaid', address: h.anvil.addresses[5]! },
    );
    await h.pay(record.deposit!.deposit!.depositAddress, USDC('2.000001'));
    await refundWorkerPasses(h, logger);
    const refund = (await h.stores.refunds.find(record.refund.id))!;
    const refundTx = refund.deposit?.payout.txHash;
    expect(refundTx).toMatch(/^0x[0-9a-f]{64}$/);

    const response = await fetch(`${origin}/receipts/${token}/pdf`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="receipt-${payment.id}.pdf"`,
    );
    expect(response.headers.get('content-language')).toBe('de');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const lines = pdfText(bytes);
    const text = lines.join('\n');

    expect(lines[0]).toBe('Quittung');
    expect(lines[1]).toBe(MERCHANT);
    expect(text).toContain(payment.id);
    expect(text).toContain('BestellungB-1042');
    expect(text).toContain('Betrag10,00 EUR');
    expect(text).toContain('Wechselkurs1 EUR = 1,08 USDC');
    expect(text).toContain('Preis in USDC10,80 USDC');
    expect(text).toContain('Gezahlte USDC12,800001 USDC');
    expect(text).toContain('Eingegangene Überweisungen');
    expect(text).toMatch(/^10,80 USDC · Polygon · /m);
    expect(text).toMatch(/^2,000001 USDC · Polygon · /m);
    expect(lines).toContain(first);
    expect(lines).toContain(second);
    expect(text).toContain('Erstattungen');
    expect(text).toMatch(/^Erstattet: 2,000001 USDC · /m);
    expect(lines).toContain(refundTx);
    // The customer sees what they paid, never what the operator kept of it.
    expect(text).not.toMatch(/Provision|commission/i);
    expect(text).toContain(`Beleg einer Zahlung in USDC an ${MERCHANT}.`);

    // The receipt page states the same facts: both transfers and the refund (decision 0050).
    const page = await (
      await fetch(`${origin}/receipts/${token}`, { headers: { 'accept-language': 'de' } })
    ).text();
    expect(page).toContain('12,800001 USDC');
    expect(page).toContain('10,00 EUR (10,80 USDC)');
    expect(page).toContain(first);
    expect(page).toContain(second);
    expect(page).toContain(`<dt>Erstattet</dt><dd>2,000001 USDC · ${refundTx}</dd>`);

    // The e-mail links it, in its own language, beside the receipt page.
    const [mail] = await h.stores.emails.list({ paymentId: payment.id, limit: 10 });
    expect(mail!.text).toContain(
      `Quittung herunterladen (PDF): ${CHECKOUT_URL}/receipts/${token}/pdf?lang=de`,
    );
    expect(mail!.html).toContain(`href="${CHECKOUT_URL}/receipts/${token}/pdf?lang=de"`);

    // The reader may ask for another language; French accents come out whole.
    const french = pdfText(
      Buffer.from(await (await fetch(`${origin}/receipts/${token}/pdf?lang=fr`)).arrayBuffer()),
    );
    expect(french[0]).toBe('Reçu');
    expect(french.join('\n')).toContain('Virements reçus');
    expect(french.join('\n')).toContain('Montant10,00 EUR');
  }, 120_000);

  it('answers the error shape for an unknown token and for a payment that is no longer paid', async () => {
    const unknown = await fetch(`${origin}/receipts/${'A'.repeat(43)}/pdf`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'Receipt not found', code: 'NOT_FOUND' });
    const malformed = await fetch(`${origin}/receipts/short/pdf`);
    expect(malformed.status).toBe(404);
    expect(await malformed.json()).toEqual({ error: 'Receipt not found', code: 'NOT_FOUND' });

    const payment = await h.createPayment('3.00', 'USDC', { customerEmail: 'ana@example.es' });
    await paid(payment, USDC('3.00'));
    const token = await receiptToken(payment.id);
    const english = pdfText(
      Buffer.from(await (await fetch(`${origin}/receipts/${token}/pdf`)).arrayBuffer()),
    );
    expect(english[0]).toBe('Receipt');
    // A USDC price has no rate to state.
    expect(english.join('\n')).not.toContain('Exchange rate');
    // A reorganisation took the payment back to pending: its token stays, its receipt is no longer true.
    await h.database.handle.db
      .updateTable('payments')
      .set({ status: 'pending' })
      .where('id', '=', payment.id)
      .execute();
    const pending = await fetch(`${origin}/receipts/${token}/pdf`);
    expect(pending.status).toBe(409);
    expect(await pending.json()).toEqual({
      error: 'The payment is not paid: it has no receipt',
      code: 'PAYMENT_NOT_PAID',
    });
  }, 120_000);

  it('names the merchant as its brand does: logo, colour, address and tax id on the PDF, the page and the e-mail', async () => {
    const logo = (bytes: Buffer, extension: 'png' | 'webp', width: number, height: number) => ({
      bytes: new Uint8Array(bytes),
      extension,
      width,
      height,
      hash: createHash('sha256').update(bytes).digest('hex'),
    });
    const png = logo(solidPng(40, 20, [0x0b, 0x5f, 0x3a]), 'png', 40, 20);
    const brand = {
      merchantId: h.merchant.id,
      displayName: 'Corner Roastery',
      colour: '#0b5f3a',
      logo: png,
      address: 'Oranienstraße 12\n10999 Berlin\nDeutschland',
      taxId: 'DE123456789',
      updatedAt: h.clock.now(),
    };
    await h.stores.brands.save(brand);
    const payment = await h.createPayment('5.00', 'USDC', {
      customerEmail: 'lea@example.de',
      customerLanguage: 'de',
    });
    await paid(payment, USDC('5.00'));
    const token = await receiptToken(payment.id);
    const pdfOf = async () =>
      Buffer.from(await (await fetch(`${origin}/receipts/${token}/pdf`)).arrayBuffer());

    const pdf = await pdfOf();
    const lines = pdfText(pdf);
    // The seller as an accountant reads it, at the top; the receipt's number is the payment's short reference.
    expect(lines.slice(0, 6)).toEqual([
      'Quittung',
      'Corner Roastery',
      'Oranienstraße 12',
      '10999 Berlin',
      'Deutschland',
      'Steuer-/USt-IdNr.: DE123456789',
    ]);
    expect(lines).toContain(`Referenz${payment.reference}`);
    expect(lines).toContain(`Zahlungs-ID${payment.id}`);
    expect(payment.reference).toMatch(/^PL-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(pdfImages(pdf)).toEqual([{ width: 40, height: 20 }]);
    // The title in the merchant's colour: #0b5f3a is 11, 95 and 58 of 255.
    expect(pdfContent(pdf)).toMatch(/0\.0431\d* 0\.3725\d* 0\.2274\d* scn/);

    // The page and the e-mail say the same, with the logo on the page and the colour in the e-mail.
    const page = await (
      await fetch(`${origin}/receipts/${token}`, { headers: { 'accept-language': 'de' } })
    ).text();
    expect(page).toContain('<dt>Adresse</dt><dd>Oranienstraße 12, 10999 Berlin, Deutschland</dd>');
    expect(page).toContain('<dt>Steuer-/USt-IdNr.</dt><dd>DE123456789</dd>');
    expect(page).toContain(`src="/brand/${h.merchant.id}/${png.hash}.png" alt="Corner Roastery"`);
    const [mail] = await h.stores.emails.list({ paymentId: payment.id, limit: 10 });
    expect(mail!.subject).toContain('Corner Roastery');
    expect(mail!.text).toContain('Adresse: Oranienstraße 12, 10999 Berlin, Deutschland');
    expect(mail!.text).toContain('Steuer-/USt-IdNr.: DE123456789');
    expect(mail!.html).toContain('background:#0b5f3a;color:#ffffff');
    expect(mail!.html).toContain('border-top:4px solid #0b5f3a;');

    // A WebP logo, which pdfkit cannot embed: the PDF names the merchant in words alone.
    await h.stores.brands.save({ ...brand, logo: logo(TINY_WEBP, 'webp', 1, 1) });
    const withoutLogo = await pdfOf();
    expect(pdfImages(withoutLogo)).toEqual([]);
    expect(pdfText(withoutLogo).slice(0, 2)).toEqual(['Quittung', 'Corner Roastery']);
    // Without a brand, the account's name, black title and no address, as before.
    await h.stores.brands.save({
      ...brand,
      displayName: null,
      colour: null,
      logo: null,
      address: null,
      taxId: null,
    });
    const plain = pdfText(await pdfOf());
    expect(plain.slice(0, 3)).toEqual(['Quittung', MERCHANT, `Referenz${payment.reference}`]);
  }, 120_000);
});
