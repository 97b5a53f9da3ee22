/**
 * The receipt page in a real browser (Debian's Chromium driven by playwright-core), served by the real checkout
 * server, for a payment paid on a real chain (anvil) and overpaid after: at a desktop's and a phone's width it
 * lists both transfers and what arrived in all, links its PDF in the page's language, axe finds nothing,
 * nothing scrolls sideways, and the link downloads the receipt under the checkout's strict CSP.
 */
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptEmail } from '../../src/adapters/email/receiptEmail.ts';
import type { ReceiptSettings } from '../../src/app/email/receipts.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import {
  accessibilityViolations,
  SCREENSHOTS,
  scrollsSideways,
  UI_TIMEOUT_MS,
  useChromium,
} from '../helpers/browser.ts';
import { type ChainHarness, startChainHarness, USDC } from '../helpers/chainHarness.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { pdfText } from '../helpers/pdfText.ts';

const receipts: ReceiptSettings = {
  template: receiptEmail,
  messageDomain: 'shop.example',
  checkoutUrl: 'https://pay.shop.example',
  explorerUrl: () => 'https://polygonscan.com',
};

const chromium = useChromium();

describe('the receipt page in Chromium', () => {
  let h: ChainHarness;
  let checkout: FastifyInstance;
  let checkoutUrl: string;
  let paymentId: string;
  let token: string;
  let paying: string;
  let more: string;

  beforeAll(async () => {
    h = await startChainHarness('sqlite', {}, { receipts });
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: { name: 'Polygon', chainId: h.anvil.chain.id, explorerUrl: 'https://polygonscan.com' },
    });
    checkoutUrl = await checkout.listen({ host: '127.0.0.1', port: 0 });
    const payment = await h.createPayment('10.00', 'EUR', { customerEmail: 'jonas@example.de' });
    paymentId = payment.id;
    paying = await h.pay(payment.deposit!.depositAddress, USDC('10.80'));
    await h.finalizeAll();
    await h.poll();
    // An overpayment after it was paid: the page lists both transfers (decision 0050).
    more = await h.pay(payment.deposit!.depositAddress, USDC('2.000001'));
    await h.poll();
    await h.finalizeAll();
    await h.poll();
    const row = await h.database.handle.db
      .selectFrom('payments')
      .select('receipt_token')
      .where('id', '=', payment.id)
      .executeTakeFirstOrThrow();
    token = row.receipt_token!;
  }, 120_000);
  afterAll(async () => {
    await checkout?.close();
    await h?.close();
  });

  for (const width of [1280, 390]) {
    it(`links the PDF in the page's language at ${width} px, with nothing for axe to find`, async () => {
      const context = await chromium.browser.newContext({
        viewport: { width, height: 900 },
        locale: 'de-DE',
        acceptDownloads: true,
      });
      try {
        const page = chromium.watch(await context.newPage());
        await page.goto(`${checkoutUrl}/receipts/${token}`);
        const link = page.getByRole('link', { name: 'Quittung herunterladen (PDF)' });
        await link.waitFor({ timeout: UI_TIMEOUT_MS });
        expect(await link.getAttribute('href')).toBe(`/receipts/${token}/pdf?lang=de`);
        // The page is drawn on the server: its text is there once the link is.
        const text = (await page.locator('main').textContent()) ?? '';
        expect(text).toContain('10,00 EUR (10,80 USDC)');
        expect(text).toContain('12,800001 USDC');
        expect(text).toContain('10,80 USDC · Polygon');
        expect(text).toContain('2,000001 USDC · Polygon');
        for (const hash of [paying, more])
          expect(await page.locator(`a[href="https://polygonscan.com/tx/${hash}"]`).count()).toBe(1);
        expect(await accessibilityViolations(page)).toEqual([]);
        expect(await scrollsSideways(page)).toBe(false);
        await page.screenshot({ path: `${SCREENSHOTS}/receipt-page-${width}.png`, fullPage: true });

        const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
        expect(download.suggestedFilename()).toBe(`receipt-${paymentId}.pdf`);
        const lines = pdfText(await readFile(await download.path()));
        expect(lines[0]).toBe('Quittung');
        expect(lines.join('\n')).toContain('Wechselkurs1 EUR = 1,08 USDC');
      } finally {
        await context.close();
      }
    }, 60_000);
  }
});
