import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundNoticeEmail } from '../../src/adapters/email/refundNoticeEmail.ts';
import { createSmtpTransport } from '../../src/adapters/outbound/smtpTransport.ts';
import { dispatchEmails } from '../../src/app/email/dispatchEmails.ts';
import type { EmailTransport } from '../../src/app/email/ports.ts';
import type { RefundNoticeSettings } from '../../src/app/email/refundNotices.ts';
import { claimRefund } from '../../src/app/refunds/claimRefund.ts';
import { createRefund } from '../../src/app/refunds/createRefund.ts';
import { findRemoteContent } from '../../src/domain/email.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { type ChainHarness, startChainHarness, USDC } from '../helpers/chainHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { refundWorkerPasses } from '../helpers/refundWorker.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

const CHECKOUT_URL = 'https://pay.shop.example';
const EXPLORER = 'https://polygonscan.com';
const notices: RefundNoticeSettings = {
  template: refundNoticeEmail,
  messageDomain: 'shop.example',
  checkoutUrl: CHECKOUT_URL,
  explorerUrl: () => EXPLORER,
};

/**
 * Refund notices end to end on a real chain: a refund without an address asks the payment's customer for
 * theirs (the claim link), and once the refund is sent the customer is told; both arrive through a real SMTP
 * server, to the address the merchant gave with the payment and to no other.
 */
describe.each(dialects)('refund notices on %s', (dialect) => {
  let h: ChainHarness;
  let smtp: TestSmtpServer;
  let transport: EmailTransport;
  const { logger } = capturingLogger();

  beforeAll(async () => {
    h = await startChainHarness(dialect);
    smtp = await startTestSmtpServer();
    transport = createSmtpTransport(smtp.settings, 'Corner Shop <no-reply@shop.example>');
  }, 120_000);
  afterAll(async () => {
    await transport?.close();
    await smtp?.close();
    await h?.close();
  });

  const send = () =>
    dispatchEmails({
      emails: h.stores.emails,
      transport,
      clock: h.clock,
      logger,
      config: { retryScheduleMs: [5_000], leaseMs: 600_000 },
      random: () => 0.5,
    });

  async function paidPayment(customerEmail?: string): Promise<Payment> {
    const payment = await h.createPayment('10.00', 'USDC', customerEmail ? { customerEmail } : {});
    await h.pay(payment.deposit!.depositAddress, USDC('10.00'));
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('paid');
    return payment;
  }

  const refundDeps = () => ({
    refunds: h.stores.refunds,
    clock: h.clock,
    deposits: { live: h.deposits },
    refundClaimTtlMs: 7 * 24 * 3600_000,
    refundNotices: notices,
  });

  it('asks the customer for an address with the claim link, then tells them the refund was sent', async () => {
    const before = smtp.received.length;
    const payment = await paidPayment('ann@example.com');
    const { record } = await createRefund(refundDeps(), h.merchant.id, 'live', {
      paymentId: payment.id,
      amount: '2.50',
    });
    await send();
    expect(smtp.received.length).toBe(before + 1);
    const claim = smtp.received.at(-1)!;
    expect(claim.to && 'text' in claim.to ? claim.to.text : '').toBe('ann@example.com');
    expect(claim.subject).toBe(`${h.merchant.name} is refunding you 2.50 USDC`);
    expect(claim.text).toContain(`${CHECKOUT_URL}/refunds/${record.refund.id}`);
    expect(findRemoteContent(String(claim.html))).toBeUndefined();

    const wallet = h.anvil.addresses[5]!;
    const claimed = await claimRefund(
      { refunds: h.stores.refunds, clock: h.clock, deposits: { live: h.deposits } },
      record.refund.id,
      wallet,
    );
    await h.pay(claimed.deposit!.deposit!.depositAddress, USDC('2.50'));
    await refundWorkerPasses(h, logger, notices);
    // The announcer runs again: the refund was told once, so the customer is too.
    await refundWorkerPasses(h, logger, notices);
    await send();
    expect(smtp.received.length).toBe(before + 2);
    const sent = smtp.received.at(-1)!;
    expect(sent.to && 'text' in sent.to ? sent.to.text : '').toBe('ann@example.com');
    expect(sent.subject).toBe(`Your refund from ${h.merchant.name} was sent`);
    expect(sent.text).toContain('2.50 USDC');
    expect(sent.text).toContain(wallet);
    expect(sent.text).toMatch(new RegExp(`${EXPLORER}/tx/0x[0-9a-f]{64}`));
  }, 60_000);

  it('writes in the customer_language the merchant gave', async () => {
    const payment = await h.createPayment('10.00', 'USDC', {
      customerEmail: 'lea@example.fr',
      customerLanguage: 'fr',
    });
    await h.pay(payment.deposit!.depositAddress, USDC('10.00'));
    await h.finalizeAll();
    await h.poll();
    await createRefund(refundDeps(), h.merchant.id, 'live', { paymentId: payment.id, amount: '1.50' });
    const notice = (await h.stores.emails.list({ paymentId: payment.id, limit: 10 })).find(
      (m) => m.kind === 'refund_notice',
    );
    expect(notice).toMatchObject({ language: 'fr', recipient: 'lea@example.fr' });
    await send();
    const mail = smtp.received.at(-1)!;
    expect(mail.subject).toBe(`${h.merchant.name} vous rembourse 1,50 USDC`);
    expect(mail.headers.get('content-language')).toBe('fr');
  }, 60_000);

  it('writes to nobody when the merchant gave no customer e-mail', async () => {
    const payment = await paidPayment();
    await createRefund(refundDeps(), h.merchant.id, 'live', { paymentId: payment.id, amount: '1.00' });
    expect(await h.stores.emails.list({ paymentId: payment.id, limit: 10 })).toEqual([]);
  }, 60_000);
});
