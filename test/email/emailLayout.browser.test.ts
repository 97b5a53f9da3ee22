import { describe, expect, it } from 'vitest';
import { renderEmailLayout } from '../../src/adapters/email/layout.ts';
import { paymentRequestEmail } from '../../src/adapters/email/paymentRequestEmail.ts';
import { SCREENSHOTS, useChromium } from '../helpers/browser.ts';

// The callback given to page.evaluate runs in the browser; the project compiles without the DOM library.
declare const document: { documentElement: { scrollWidth: number } };

/** What a mail reader shows: the message's HTML alone, with every request it would make counted and refused. */
describe('the e-mail layout in Chromium', () => {
  const chromium = useChromium();

  const message = renderEmailLayout({
    language: 'en',
    subject: 'Payment request from Corner Shop',
    preheader: '49.90 EUR, due by 30 November',
    heading: 'Corner Shop asks you to pay 49.90 EUR',
    paragraphs: [
      'For order order-1: two mugs and a teapot.',
      'The link is valid until 30 November 2026, 18:00 CET.',
    ],
    facts: [
      { label: 'Amount', value: '49.90 EUR' },
      { label: 'Order', value: 'order-1' },
      { label: 'Deposit address', value: '0x90F79bf6EB2c4f870365E785982E1f101E93b906' },
    ],
    action: { label: 'Pay now', url: 'https://pay.example/pay/0190f1c2-0000-7000-8000-000000000001' },
    footer: ['You get this e-mail because Corner Shop gave your address for this order.'],
  });

  it.each([
    ['desktop', 1280],
    ['phone', 390],
  ])(
    'renders on a %s without loading anything, the button a plain link, nothing wider than the screen',
    async (name, width) => {
      const page = await chromium.browser.newPage({ viewport: { width, height: 800 } });
      const requests: string[] = [];
      await page.route('**/*', (route) => {
        requests.push(route.request().url());
        return route.abort();
      });
      await page.setContent(message.html, { waitUntil: 'load' });
      expect(requests).toEqual([]);

      const button = page.getByRole('link', { name: 'Pay now' });
      expect(await button.isVisible()).toBe(true);
      expect(await button.getAttribute('href')).toBe(
        'https://pay.example/pay/0190f1c2-0000-7000-8000-000000000001',
      );
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
        'Corner Shop asks you to pay 49.90 EUR',
      );
      expect(await page.getByRole('rowheader', { name: 'Deposit address' }).isVisible()).toBe(true);
      // The preheader is for the inbox list, not the body.
      expect(await page.getByText('49.90 EUR, due by 30 November').isVisible()).toBe(false);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `${SCREENSHOTS}/email-layout-${name}.png`, fullPage: true });
      await page.close();
    },
  );

  it.each([
    ['en', 1280],
    ['de', 390],
  ] as const)(
    'shows the payment request in %s at %i px: amount, USDC, expiry and the button, loading nothing',
    async (language, width) => {
      const url = 'https://pay.example/pay/0190f1c2-0000-7000-8000-000000000002';
      const request = paymentRequestEmail.render(
        {
          merchantName: 'Corner Shop',
          amount: '49.90',
          currency: 'EUR',
          usdcAmount: '53.90',
          orderId: 'order-1042',
          expiresAt: new Date('2026-11-30T17:00:00Z'),
          paymentUrl: url,
        },
        language,
      );
      const page = await chromium.browser.newPage({ viewport: { width, height: 800 } });
      const requests: string[] = [];
      await page.route('**/*', (route) => {
        requests.push(route.request().url());
        return route.abort();
      });
      await page.setContent(request.html, { waitUntil: 'load' });
      expect(requests).toEqual([]);
      const button = page.getByRole('link', {
        name: language === 'en' ? 'Pay 49.90 EUR' : '49,90 EUR zahlen',
      });
      expect(await button.isVisible()).toBe(true);
      expect(await button.getAttribute('href')).toBe(url);
      const text = (await page.textContent('body')) ?? '';
      expect(text).toContain(language === 'en' ? '53.90 USDC' : '53,90 USDC');
      expect(text).toContain('order-1042');
      expect(text).toContain('UTC');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `${SCREENSHOTS}/email-payment-request-${language}.png`, fullPage: true });
      await page.close();
    },
  );
});
