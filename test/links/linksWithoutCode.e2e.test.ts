import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ParsedMail } from 'mailparser';
import type { Page } from 'playwright-core';
import { createPublicClient, createWalletClient, type Hex, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { SANDBOX_ACCOUNTS, sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import {
  accessibilityViolations,
  SCREENSHOTS,
  scrollsSideways,
  UI_TIMEOUT_MS,
  useChromium,
} from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { eventually } from '../helpers/net.ts';
import { type SandboxProcess, startSandbox } from '../helpers/sandboxProcess.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';
import { walletContext } from '../helpers/testWallet.ts';

/**
 * Issue 28's acceptance, as a shop owner who never reads the API lives it, on the sandbox a newcomer starts
 * (`paylink serve`: its own chain, worker and relayers), with e-mail sent to a real SMTP server and every page
 * in Chromium: the owner makes a one-off link, a fixed-price link with a quantity and a donation link in the
 * dashboard; three payers pay through them (one with gas, one gasless, one partly and then the rest); each gets
 * a receipt and is sent back to the shop's success_url; a request sent by e-mail is paid from the link in it;
 * the owner sees each payment under its link; viewing a link creates nothing. Every page met is checked with axe at 1280 and 390 px, and its screenshots are kept.
 */
describe('links made without code, paid by three payers (sandbox, SMTP, Chromium)', {
  timeout: 240_000,
}, () => {
  let sandbox: SandboxProcess;
  let env: Record<string, string>;
  let apiKey: string;
  let baseUrl: string;
  let smtp: TestSmtpServer;
  let shop: Server;
  let shopUrl: string;
  /** The shop's pages the payers landed on, as the browser asked for them. */
  const shopVisits: string[] = [];
  const chromium = useChromium();
  let owner: Page;
  /** What the owner made, as the dashboard showed it. */
  const made = { oneOff: { id: '', url: '' }, ticket: { id: '', url: '' }, donation: { id: '', url: '' } };

  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    shop = createServer((request, response) => {
      shopVisits.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<!doctype html><html lang="en"><title>Thanks</title><h1>Thank you for your order</h1></html>',
      );
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;

    sandbox = await startSandbox({
      // The operator's mail server: a real SMTP server on loopback, without TLS as only loopback may.
      PAYLINK_SMTP_URL: `smtp://127.0.0.1:${smtp.settings.port}?starttls=off`,
      PAYLINK_MAIL_FROM: 'Corner Café payments <payments@corner.example>',
    });
    ({ env, apiKey, apiUrl: baseUrl } = sandbox);
  });

  afterAll(async () => {
    await sandbox?.stop();
    await smtp?.close();
    await new Promise((resolve) => shop?.close(resolve));
  });

  const api = (path: string) =>
    fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': apiKey } }).then(
      (r) => r.json() as Promise<Record<string, unknown>>,
    );
  const status = (id: string) => api(`/payments/api/status/${id}/`);
  const paymentCount = async () => {
    const listed = (await api('/payments/api/payments/?limit=100')) as { payments: unknown[] };
    return listed.payments.length;
  };

  /** Axe at 1280 and 390 px, no sideways scroll at 390, and a screenshot at each width, kept with the output. */
  async function checkPage(page: Page, name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect({ name, width, violations: await accessibilityViolations(page) }).toEqual({
        name,
        width,
        violations: [],
      });
      if (width === 390)
        expect({ name, sideways: await scrollsSideways(page) }).toEqual({ name, sideways: false });
      await page.screenshot({ path: join(SCREENSHOTS, `links-e2e-${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function newPage(): Promise<Page> {
    const context = await chromium.browser.newContext({ locale: 'en-GB', timezoneId: 'UTC' });
    const page = await context.newPage();
    chromium.watch(page);
    return page;
  }

  const receiptFor = async (address: string): Promise<ParsedMail> => {
    const found = await eventually(
      async () =>
        smtp.received.find((mail) => mail.to && !Array.isArray(mail.to) && mail.to.text === address),
      (mail) => mail !== undefined,
    );
    expect(found, `a receipt for ${address}`).toBeDefined();
    return found!;
  };

  /** The payer's page, once paid, counts down and takes them to the shop's success_url with the payment's id. */
  async function returnsToShop(page: Page, paymentId: string): Promise<void> {
    await page.waitForURL(`${shopUrl}/thanks?payment_id=${paymentId}`, { timeout: UI_TIMEOUT_MS });
    expect(shopVisits).toContain(`/thanks?payment_id=${paymentId}`);
  }

  it('lets the owner sign in and make a one-off link, a fixed-price link with a quantity and a donation link', async () => {
    const credentials = /^\s+merchant\s+(\S+)\s+password (\S+)$/m.exec(sandbox.output());
    expect(credentials).not.toBeNull();
    owner = await newPage();
    await owner.goto(`${baseUrl}/dashboard/login`);
    await owner.locator('#email').fill(credentials![1]!);
    await owner.locator('#password').fill(credentials![2]!);
    await owner.getByRole('button', { name: 'Sign in' }).click();
    await owner.getByRole('link', { name: 'New payment' }).first().click();
    await checkPage(owner, 'new-payment-form');
    await owner.locator('#amount').fill('7.50');
    await owner.locator('#currency').fill('USDC');
    await owner.locator('#description').fill('Repair of a bicycle wheel');
    await owner.locator('#order_id').fill('R-1001');
    await owner.locator('#customer_email').fill('alice@example.com');
    await owner.locator('#success_url').fill(`${shopUrl}/thanks`);
    await owner.getByRole('button', { name: 'Create the link' }).click();
    await owner.waitForURL(/\/dashboard\/payments\/[0-9a-f-]+\/link$/, { timeout: UI_TIMEOUT_MS });
    made.oneOff = {
      id: /\/dashboard\/payments\/([0-9a-f-]+)\/link$/.exec(owner.url())![1]!,
      url: await owner.locator('#payment-url').inputValue(),
    };
    expect(made.oneOff.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pay\/[0-9a-f-]+$/);
    await checkPage(owner, 'new-payment-made');

    const newLink = async (fields: Record<string, string>, priceType: 'fixed' | 'open') => {
      await owner.goto(`${baseUrl}/dashboard/links/new`);
      for (const [name, value] of Object.entries(fields)) await owner.locator(`#${name}`).fill(value);
      await owner.locator(`input[name="price_type"][value="${priceType}"]`).check();
      await owner.getByRole('button', { name: 'Create the link' }).click();
      await owner.waitForURL(/\/dashboard\/links\/[0-9a-f-]+$/, { timeout: UI_TIMEOUT_MS });
      return {
        id: /\/dashboard\/links\/([0-9a-f-]+)$/.exec(owner.url())![1]!,
        url: await owner.locator('#link-url').inputValue(),
      };
    };
    await owner.goto(`${baseUrl}/dashboard/links/new`);
    await checkPage(owner, 'new-link-form');
    made.ticket = await newLink(
      {
        title: 'Concert ticket',
        currency: 'USDC',
        amount: '4.00',
        max_quantity: '5',
        success_url: `${shopUrl}/thanks`,
      },
      'fixed',
    );
    await checkPage(owner, 'link-made');
    made.donation = await newLink(
      {
        title: 'Tip the band',
        currency: 'USDC',
        min_amount: '1',
        max_amount: '100',
        suggested_amounts: '5, 10, 20',
        success_url: `${shopUrl}/thanks`,
      },
      'open',
    );
    for (const link of [made.ticket, made.donation])
      expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/l\//);
  });

  it('creates no payment when the links are only looked at', async () => {
    const before = await paymentCount();
    const visitor = await newPage();
    for (const url of [made.ticket.url, made.donation.url, made.ticket.url]) {
      const response = await visitor.goto(url);
      expect(response?.status()).toBe(200);
    }
    await checkPage(visitor, 'link-fixed-quantity');
    await visitor.goto(made.donation.url);
    await checkPage(visitor, 'link-open-amount');
    expect(await paymentCount()).toBe(before);
  });

  it('takes the one-off payment with gas, sends a receipt and returns the payer to the shop', async () => {
    const payer = await newPage();
    expect((await payer.goto(made.oneOff.url))?.status()).toBe(200);
    // A plain transfer with gas, as from any wallet or exchange: the sandbox's funded customer sends it.
    const sent = await runCli(['sandbox', 'pay', made.oneOff.id], env);
    expect(sent.stdout).toMatch(/^Sent 7\.50 USDC to 0x[0-9a-fA-F]{40}: 0x[0-9a-f]{64}/);
    await returnsToShop(payer, made.oneOff.id);
    expect(await status(made.oneOff.id)).toMatchObject({ status: 'paid', amount_received: '7.50' });
    const receipt = await receiptFor('alice@example.com');
    expect(receipt.text).toContain('7.50');
    expect(receipt.text).toContain('R-1001');
  });

  it('takes a quantity of the ticket, paid gasless from the page’s wallet button, with a receipt', async () => {
    const key = generatePrivateKey();
    const customer = privateKeyToAccount(key);
    const payer = await walletContext(
      chromium.browser,
      { rpcUrl: env.PAYLINK_RPC_URL!, chainId: foundry.id, accounts: [], defaultAccountIndex: 0 },
      { privateKey: key, knowsChain: true, startChainId: `0x${foundry.id.toString(16)}` },
      { locale: 'en-GB', timezoneId: 'UTC' },
    ).then((context) => context.newPage());
    chromium.watch(payer);
    await payer.goto(made.ticket.url);
    await payer.locator('#quantity').fill('2');
    await payer.locator('#email').fill('bob@example.com');
    await payer.getByRole('button', { name: 'Continue to payment' }).click();
    await payer.waitForURL(/\/pay\/[0-9a-f-]+/, { timeout: UI_TIMEOUT_MS });
    const paymentId = /\/pay\/([0-9a-f-]+)/.exec(payer.url())![1]!;
    expect(await status(paymentId)).toMatchObject({ status: 'pending', link_id: made.ticket.id });

    // Fresh from an exchange: 8.00 USDC and no POL at all (the sandbox token's owner mints it).
    const offer = (await fetch(`${new URL(made.ticket.url).origin}/pay/${paymentId}/gasless.json`).then((r) =>
      r.json(),
    )) as { domain: { verifyingContract: Hex }; value: string };
    expect(offer.value).toBe('8000000');
    const rpc = http(env.PAYLINK_RPC_URL);
    const chain = createPublicClient({ chain: foundry, transport: rpc });
    const minter = createWalletClient({
      account: privateKeyToAccount(sandboxPrivateKey(SANDBOX_ACCOUNTS.relayer)),
      chain: foundry,
      transport: rpc,
    });
    await chain.waitForTransactionReceipt({
      hash: await minter.writeContract({
        address: offer.domain.verifyingContract,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [customer.address, 8_000_000n],
      }),
    });
    await payer.getByRole('button', { name: 'Pay with browser wallet' }).click();
    await returnsToShop(payer, paymentId);
    expect(await status(paymentId)).toMatchObject({ status: 'paid', amount_received: '8.00' });
    expect(await chain.getBalance({ address: customer.address })).toBe(0n);
    const receipt = await receiptFor('bob@example.com');
    expect(receipt.text).toContain('8.00');
  });

  it('takes a donation typed by the payer, paid in part and then topped up, with a receipt', async () => {
    const payer = await newPage();
    await payer.goto(made.donation.url);
    await payer.locator('#typed-amount').fill('12,50');
    await payer.locator('#email').fill('carol@example.com');
    await payer.getByRole('button', { name: 'Continue to payment' }).click();
    await payer.waitForURL(/\/pay\/[0-9a-f-]+/, { timeout: UI_TIMEOUT_MS });
    const paymentId = /\/pay\/([0-9a-f-]+)/.exec(payer.url())![1]!;
    await checkPage(payer, 'checkout-from-link');

    const part = await runCli(['sandbox', 'pay', paymentId, '--amount', '5'], env);
    expect(part.stdout).toMatch(/^Sent 5\.00 USDC to /);
    expect(
      await eventually(
        () => status(paymentId),
        (s) => s.status === 'processing',
      ),
    ).toMatchObject({
      status: 'processing',
      amount_received: '5.00',
    });
    const rest = await runCli(['sandbox', 'pay', paymentId], env);
    expect(rest.stdout).toMatch(/^Sent 7\.50 USDC to /);
    await returnsToShop(payer, paymentId);
    expect(await status(paymentId)).toMatchObject({ status: 'paid', amount_received: '12.50' });
    const receipt = await receiptFor('carol@example.com');
    expect(receipt.text).toContain('12.50');
    // The receipt page the e-mail links to, on the checkout's origin.
    const receiptUrl = /https?:\/\/\S+\/receipts\/[A-Za-z0-9_-]+/.exec(receipt.text ?? '')?.[0];
    expect(receiptUrl).toBeDefined();
    const reader = await newPage();
    expect((await reader.goto(receiptUrl!))?.status()).toBe(200);
    await checkPage(reader, 'receipt');
  });

  it('sends a payment request by e-mail from the dashboard, paid from the link in the message', async () => {
    await owner.goto(`${baseUrl}/dashboard/payments/new`);
    await owner.locator('#amount').fill('3.20');
    await owner.locator('#currency').fill('USDC');
    await owner.locator('#order_id').fill('INV-77');
    await owner.locator('#customer_email').fill('dave@example.com');
    await owner.locator('#expires_in').fill('2');
    await owner.locator('#expires_unit').selectOption('days');
    await owner.locator('input[name="send_email"]').check();
    // Whole seconds: the expiry is stored to the second.
    const submitted = Math.floor(Date.now() / 1000) * 1000;
    await owner.getByRole('button', { name: 'Create the link' }).click();
    await owner.waitForURL(/\/dashboard\/payments\/[0-9a-f-]+\/link\?emailed=1$/, { timeout: UI_TIMEOUT_MS });
    const paymentId = /\/dashboard\/payments\/([0-9a-f-]+)\/link/.exec(owner.url())![1]!;
    expect(await owner.getByText('The link was sent by e-mail to dave@example.com.').count()).toBe(1);
    await checkPage(owner, 'request-sent');
    // Two days from its creation, as typed, rather than the service's hour: the customer has until then.
    const expiresAt = Date.parse((await status(paymentId)).expires_at as string);
    const twoDays = 2 * 24 * 3_600_000;
    expect(expiresAt).toBeGreaterThanOrEqual(submitted + twoDays);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + twoDays);

    const request = await eventually(
      async () =>
        smtp.received.find((mail) => !Array.isArray(mail.to) && mail.to?.text === 'dave@example.com'),
      (mail) => mail !== undefined,
    );
    expect(request?.subject).toContain('3.20');
    expect(request?.text).toContain('INV-77');
    const link = /https?:\/\/\S+\/pay\/[0-9a-f-]+/.exec(request?.text ?? '')?.[0];
    expect(link).toBe(made.oneOff.url.replace(made.oneOff.id, paymentId));
    const payer = await newPage();
    expect((await payer.goto(link!))?.status()).toBe(200);
    const sent = await runCli(['sandbox', 'pay', paymentId], env);
    expect(sent.stdout).toMatch(/^Sent 3\.20 USDC to /);
    expect(
      await eventually(
        () => status(paymentId),
        (s) => s.status === 'paid',
      ),
    ).toMatchObject({
      status: 'paid',
      amount_received: '3.20',
    });
    // Then its receipt, to the same customer: the request and the receipt, nothing more.
    await eventually(
      async () =>
        smtp.received.filter((mail) => !Array.isArray(mail.to) && mail.to?.text === 'dave@example.com'),
      (mails) => mails.length === 2,
    );
  });

  it('shows the owner each payment under its link, with what the link brought', async () => {
    const facts = async (linkId: string) => {
      await owner.goto(`${baseUrl}/dashboard/links/${linkId}`);
      const terms = await owner.locator('dl.facts dt').allTextContents();
      const values = await owner.locator('dl.facts dd').allTextContents();
      return Object.fromEntries(terms.map((term, i) => [term, values[i]]));
    };
    expect(await facts(made.ticket.id)).toMatchObject({ Paid: '1', 'USDC received': '8.00 USDC' });
    expect(await owner.locator('tbody tr').count()).toBe(1);
    await checkPage(owner, 'link-with-payment');
    expect(await facts(made.donation.id)).toMatchObject({ Paid: '1', 'USDC received': '12.50 USDC' });
    expect(await owner.locator('tbody tr').count()).toBe(1);
    // A receipt to each payer, the request to the one it was sent to, and nothing to anyone else.
    expect(smtp.received.map((mail) => (Array.isArray(mail.to) ? '' : mail.to?.text)).sort()).toEqual([
      'alice@example.com',
      'bob@example.com',
      'carol@example.com',
      'dave@example.com',
      'dave@example.com',
    ]);
  });
});
