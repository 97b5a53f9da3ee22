import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRequestEmail } from '../../src/adapters/email/paymentRequestEmail.ts';
import { receiptEmail } from '../../src/adapters/email/receiptEmail.ts';
import { createSmtpTransport } from '../../src/adapters/outbound/smtpTransport.ts';
import { dispatchEmails } from '../../src/app/email/dispatchEmails.ts';
import type { PaymentRequestSettings } from '../../src/app/email/paymentRequests.ts';
import type { EmailTransport } from '../../src/app/email/ports.ts';
import type { ReceiptSettings } from '../../src/app/email/receipts.ts';
import { findRemoteContent } from '../../src/domain/email.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ChainHarness, startChainHarness, USDC } from '../helpers/chainHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

const CHECKOUT_URL = 'https://pay.shop.example';
const EXPLORER = 'https://polygonscan.com';
const paymentRequests: PaymentRequestSettings = {
  template: paymentRequestEmail,
  messageDomain: 'shop.example',
  paymentUrl: (id) => `${CHECKOUT_URL}/pay/${id}`,
};
const receipts: ReceiptSettings = {
  template: receiptEmail,
  messageDomain: 'shop.example',
  checkoutUrl: CHECKOUT_URL,
  explorerUrl: () => EXPLORER,
};

/**
 * Receipts end to end: a payment with a customer e-mail paid on a real chain, the receipt queued by the watcher
 * in the transaction that marks it paid, sent through a real SMTP server and parsed as it arrives, and the
 * receipt page it links to opened on the checkout over a real socket.
 */
describe.each(dialects)('receipts on %s', (dialect) => {
  let h: ChainHarness;
  let smtp: TestSmtpServer;
  let transport: EmailTransport;
  let checkout: FastifyInstance;
  let checkoutOrigin: string;

  beforeAll(async () => {
    h = await startChainHarness(dialect, {}, { receipts, paymentRequests });
    smtp = await startTestSmtpServer();
    transport = createSmtpTransport(smtp.settings, 'Corner Shop <no-reply@shop.example>');
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: { name: 'Polygon', chainId: h.anvil.chain.id, explorerUrl: EXPLORER },
    });
    await checkout.listen({ host: '127.0.0.1', port: 0 });
    const address = checkout.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    checkoutOrigin = `http://127.0.0.1:${address.port}`;
  }, 120_000);
  afterAll(async () => {
    await checkout?.close();
    await transport?.close();
    await smtp?.close();
    await h?.close();
  });

  /** Pays the payment in full and runs the watcher until it is final, then sends what was queued. */
  async function payAndSend(payment: Payment, amount: string) {
    const txid = await h.pay(payment.deposit!.depositAddress, USDC(amount));
    await h.poll();
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('paid');
    await dispatchEmails({
      emails: h.stores.emails,
      transport,
      clock: h.clock,
      logger: capturingLogger().logger,
      config: { retryScheduleMs: [5_000], leaseMs: 600_000 },
      random: () => 0.5,
    });
    return txid;
  }

  it('sends a paid payment’s receipt once, with its figures, and its page opens with the link alone', async () => {
    const before = smtp.received.length;
    const payment = await h.createPayment('12.50', 'USDC', {
      customerEmail: 'ann@example.com',
      orderId: 'order-881',
    });
    const txid = await payAndSend(payment, '12.50');
    // Another pass and another send: the payment is paid once, so it has one receipt.
    await h.poll();
    await payAndSendAgain();
    expect(smtp.received.length).toBe(before + 1);
    const mail = smtp.received.at(-1)!;
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toBe('ann@example.com');
    expect(mail.subject).toBe(`Your receipt from ${h.merchant.name}`);
    const text = mail.text ?? '';
    expect(text).toContain('12.50 USDC');
    expect(text).toContain(txid);
    expect(text).toContain(`${EXPLORER}/tx/${txid}`);
    expect(text).toContain('order-881');
    expect(text).toMatch(/UTC/);
    expect(findRemoteContent(String(mail.html))).toBeUndefined();
    const link = /https:\/\/pay\.shop\.example(\/receipts\/[A-Za-z0-9_-]{43})/.exec(text);
    expect(link).not.toBeNull();

    const page = await fetch(`${checkoutOrigin}${link![1]}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const body = await page.text();
    expect(body).toContain(h.merchant.name);
    expect(body).toContain(`href="${EXPLORER}/tx/${txid}"`);
    expect(body).toContain('order-881');
    expect(body).toContain('<meta name="robots" content="noindex, nofollow">');

    const wrongToken = link![1]!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await fetch(`${checkoutOrigin}${wrongToken}`)).status).toBe(404);
    expect((await fetch(`${checkoutOrigin}/receipts/short`)).status).toBe(404);
  }, 60_000);

  it('an overpayment after the receipt: the page lists both transfers and 18.50, and the customer gets an updated receipt saying so', async () => {
    const before = smtp.received.length;
    const payment = await h.createPayment('13.50', 'USDC', { customerEmail: 'olga@example.com' });
    const first = await payAndSend(payment, '13.50');
    expect(smtp.received.length).toBe(before + 1);
    const receipt = smtp.received.at(-1)!.text ?? '';
    expect(receipt).toContain('USDC paid: 13.50 USDC');
    expect(receipt).toContain(first);
    expect(receipt.match(/0x[0-9a-f]{64}/g)?.filter((hash) => hash !== first) ?? []).toEqual([]);

    // Five more arrive once the payment is paid: counted when final, in the transaction that counts them.
    const more = await h.pay(payment.deposit!.depositAddress, USDC('5.00'));
    await h.poll();
    await h.finalizeAll();
    await h.poll();
    await payAndSendAgain();
    // Another pass and another send over the same transfers: one update, not two.
    await h.poll();
    await payAndSendAgain();
    expect(smtp.received.length).toBe(before + 2);
    const updated = smtp.received.at(-1)!;
    expect(updated.subject).toBe(`Your receipt from ${h.merchant.name}`);
    const text = updated.text ?? '';
    expect(text).toContain('USDC paid: 18.50 USDC');
    expect(text).toContain(`Transaction: 13.50 USDC · ${first}`);
    expect(text).toContain(`Transaction: 5.00 USDC · ${more}`);
    expect(text).toContain(`${EXPLORER}/tx/${more}`);
    const links = [receipt, text].map(
      (t) => /https:\/\/pay\.shop\.example(\/receipts\/[A-Za-z0-9_-]{43})/.exec(t)?.[1],
    );
    expect(links[1]).toBe(links[0]);
    const kinds = (await h.stores.emails.list({ paymentId: payment.id, limit: 10 })).map((m) => m.kind);
    expect(kinds).toEqual(['receipt', 'receipt']);

    const body = await (await fetch(`${checkoutOrigin}${links[0]}`)).text();
    expect(body).toContain('18.50 USDC');
    expect(body).toContain(`href="${EXPLORER}/tx/${first}"`);
    expect(body).toContain(`href="${EXPLORER}/tx/${more}"`);
    expect(body).toContain('13.50 USDC · Polygon');
    expect(body).toContain('5.00 USDC · Polygon');
  }, 90_000);

  it('writes the receipt in the language the checkout showed the payer, where the merchant gave none', async () => {
    const payment = await h.createPayment('6.00', 'USDC', { customerEmail: 'dora@example.de' });
    const page = await fetch(`${checkoutOrigin}/pay/${payment.id}`, {
      headers: { 'accept-language': 'de-DE' },
    });
    expect(page.status).toBe(200);
    await payAndSend(payment, '6.00');
    const [receipt] = await h.stores.emails.list({ paymentId: payment.id, limit: 10 });
    expect(receipt).toMatchObject({ kind: 'receipt', language: 'de', status: 'sent' });
    const mail = smtp.received.at(-1)!;
    expect(mail.subject).toBe(`Ihre Quittung von ${h.merchant.name}`);
    expect(mail.headers.get('content-language')).toBe('de');
    expect(mail.text ?? '').toContain('6,00');
  }, 60_000);

  it('a request e-mailed is paid from the link in the message, and its customer gets the receipt', async () => {
    const before = smtp.received.length;
    const payment = await h.createPayment('9.00', 'USDC', {
      customerEmail: 'fay@example.com',
      orderId: 'inv-77',
      sendEmail: true,
    });
    await payAndSendAgain();
    expect(smtp.received.length).toBe(before + 1);
    const request = smtp.received.at(-1)!;
    const link = /https:\/\/pay\.shop\.example(\/pay\/[0-9a-f-]{36})/.exec(request.text ?? '');
    expect(link?.[1]).toBe(`/pay/${payment.id}`);
    // The customer opens the link from the message: the checkout page of that payment, asking for 9.00 USDC.
    const page = await fetch(`${checkoutOrigin}${link![1]}`);
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('9.00');
    expect(body).toContain(payment.deposit!.depositAddress);
    await payAndSend(payment, '9.00');
    expect(smtp.received.length).toBe(before + 2);
    expect(smtp.received.at(-1)!.subject).toBe(`Your receipt from ${h.merchant.name}`);
    const kinds = (await h.stores.emails.list({ paymentId: payment.id, limit: 10 })).map((m) => m.kind);
    expect(kinds.sort()).toEqual(['payment_request', 'receipt']);
  }, 60_000);

  async function payAndSendAgain() {
    await dispatchEmails({
      emails: h.stores.emails,
      transport,
      clock: h.clock,
      logger: capturingLogger().logger,
      config: { retryScheduleMs: [5_000], leaseMs: 600_000 },
      random: () => 0.5,
    });
  }

  it('sends none without a customer e-mail, nor when the merchant turned receipts off', async () => {
    const before = smtp.received.length;
    const anonymous = await h.createPayment('3.00');
    await payAndSend(anonymous, '3.00');
    await h.stores.merchants.save({ ...h.merchant, sendReceipts: false });
    try {
      const optedOut = await h.createPayment('4.00', 'USDC', { customerEmail: 'bob@example.com' });
      await payAndSend(optedOut, '4.00');
      expect(await h.stores.emails.list({ paymentId: optedOut.id, limit: 10 })).toEqual([]);
    } finally {
      await h.stores.merchants.save(h.merchant);
    }
    expect(await h.stores.emails.list({ paymentId: anonymous.id, limit: 10 })).toEqual([]);
    expect(smtp.received.length).toBe(before);
  }, 60_000);
});
