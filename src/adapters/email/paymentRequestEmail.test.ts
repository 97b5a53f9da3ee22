import { describe, expect, it } from 'vitest';
import { findRemoteContent } from '../../domain/email.ts';
import { paymentRequestEmail } from './paymentRequestEmail.ts';

const data = {
  merchantName: 'Café <Lumière>',
  amount: '1234.50',
  currency: 'EUR',
  usdcAmount: '1333.26',
  orderId: 'order-9',
  expiresAt: new Date('2026-11-27T15:30:00Z'),
  paymentUrl: 'https://pay.shop.example/pay/0190d1c2-0000-7000-8000-000000000001',
};

describe('the payment request e-mail', () => {
  it('shows the merchant, the amount in the reader’s locale, the expiry with its zone and the pay button', () => {
    const french = paymentRequestEmail.render(data, 'fr');
    expect(french.subject).toBe('Café <Lumière> vous demande de payer 1\u202f234,50 EUR');
    expect(french.text).toContain('1\u202f333,26 USDC');
    expect(french.text).toContain('27 nov. 2026, 15:30 UTC');
    expect(french.text).toContain(`Payer 1\u202f234,50 EUR: ${data.paymentUrl}`);
    // The merchant's name is escaped in the HTML; the button is a plain link to the payment_url.
    expect(french.html).toContain('Café &lt;Lumière&gt;');
    expect(french.html).not.toContain('<Lumière>');
    expect(french.html).toContain(`<a href="${data.paymentUrl}"`);
    expect(findRemoteContent(french.html)).toBeUndefined();
  });

  it('falls back to English, and leaves out the USDC line for a USDC price', () => {
    const english = paymentRequestEmail.render({ ...data, currency: 'USDC', usdcAmount: '1234.50' }, 'pt');
    expect(english.subject).toBe('Café <Lumière> asks you to pay 1,234.50 USDC');
    expect(english.text).not.toContain('In USDC');
    expect(english.html).toContain('lang="en"');
  });
});
