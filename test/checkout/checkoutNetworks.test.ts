/**
 * The payment page's networks over app.inject (decision 0033): a payment on the mode's V3 factory is offered on
 * its home chain first, then each source chain, each with its own EIP-681 request and QR code, the same deposit
 * address on all; the warning names them all; a choice works without the script (`?network=`). A payment on an
 * older factory, or where the mode has no source chain, is offered its home chain alone, as before.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModeNetworks, NetworkCandidate } from '../../src/adapters/checkout/paymentNetworks.ts';
import { eip681TransferLink } from '../../src/adapters/web/eip681.ts';
import { qrSvg } from '../../src/adapters/web/qrCode.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

const HOME: NetworkCandidate = {
  chainId: TEST_CHAIN.chainId,
  name: 'Polygon',
  role: 'home',
  usdcAddress: TEST_CHAIN.tokenAddress,
  publicRpcUrl: 'https://polygon-rpc.example',
  explorerUrl: 'https://polygonscan.com',
  nativeCurrencySymbol: 'POL',
  gasless: true,
};
const BASE: NetworkCandidate = {
  chainId: 8453,
  name: 'Base',
  role: 'source',
  usdcAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  publicRpcUrl: 'https://base-rpc.example',
  explorerUrl: 'https://basescan.org',
  nativeCurrencySymbol: 'ETH',
  gasless: false,
};
const ARBITRUM: NetworkCandidate = {
  ...BASE,
  chainId: 42161,
  name: 'Arbitrum',
  usdcAddress: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
};
/** The API harness plans deposits on TEST_CHAIN's factory: here it is the mode's V3 factory. */
const WITH_SOURCES: ModeNetworks = {
  chains: [HOME, BASE, ARBITRUM],
  v3FactoryAddress: TEST_CHAIN.factoryAddress.toLowerCase(),
};
/** The same chains where the V3 factory is another one: the harness's payments are older ones. */
const OLDER_FACTORY: ModeNetworks = {
  ...WITH_SOURCES,
  v3FactoryAddress: '0x1111111111111111111111111111111111111111',
};

describe.each(dialects)('checkout networks on %s', (dialect) => {
  let h: ApiHarness;
  let checkout: FastifyInstance;
  let olderCheckout: FastifyInstance;
  let apiKey: string;

  beforeAll(async () => {
    h = await startApiHarness(dialect);
    apiKey = (await h.merchant({ name: 'Corner Café' })).apiKey;
    const build = (mode: ModeNetworks) =>
      buildCheckoutServer({
        ...h.stores,
        clock: h.clock,
        logger: capturingLogger().logger,
        network: { name: 'Polygon', chainId: TEST_CHAIN.chainId, explorerUrl: 'https://polygonscan.com' },
        modeNetworks: [mode],
      });
    checkout = await build(WITH_SOURCES);
    olderCheckout = await build(OLDER_FACTORY);
  });
  afterAll(async () => {
    await olderCheckout?.close();
    await checkout?.close();
    await h?.close();
  });

  async function createPayment(): Promise<Payment> {
    const response = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      payload: JSON.stringify({ amount: '27.00', currency: 'USDC' }),
    });
    expect(response.statusCode).toBe(201);
    return (await h.stores.payments.findById(response.json().payment_id))!;
  }

  const get = (url: string, app = checkout, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers });

  const linkOn = (payment: Payment, tokenAddress: string, chainId: number) =>
    eip681TransferLink({
      tokenAddress,
      chainId,
      recipient: payment.deposit!.depositAddress,
      amountBaseUnits: 27_000_000n,
    });

  /** The radios of the network choice, in page order: value, checked, and the request each carries. */
  const radios = (page: string) =>
    [
      ...page.matchAll(
        /<input type="radio" name="network" value="(\d+)"( checked)?[^>]*data-request="([^"]+)"/g,
      ),
    ].map((m) => ({
      chainId: Number(m[1]),
      checked: m[2] !== undefined,
      link: m[3]!.replaceAll('&amp;', '&'),
    }));
  const paymentLinkOf = (page: string) =>
    page.match(/data-payment-link href="([^"]+)"/)?.[1]?.replaceAll('&amp;', '&');

  it('offers home first and chosen, then each source chain, each with its own request to the same address', async () => {
    const payment = await createPayment();
    const page = (await get(`/pay/${payment.id}`)).body;
    expect(radios(page)).toEqual([
      {
        chainId: TEST_CHAIN.chainId,
        checked: true,
        link: linkOn(payment, TEST_CHAIN.tokenAddress, TEST_CHAIN.chainId),
      },
      { chainId: 8453, checked: false, link: linkOn(payment, BASE.usdcAddress, 8453) },
      { chainId: 42161, checked: false, link: linkOn(payment, ARBITRUM.usdcAddress, 42161) },
    ]);
    // A fieldset with a legend: the group is named for a screen reader; the radios take the arrow keys. The
    // script shows it; without the script, links to the page on each network, the chosen one current.
    expect(page).toMatch(
      /<fieldset data-network-choice aria-describedby="network-hint" hidden>\s*<legend>Network to pay on<\/legend>/,
    );
    expect(
      [...page.matchAll(/<a class="network-option" href="([^"]+)"( aria-current="true")?>([^<]+)</g)].map(
        (m) => [m[1], m[2] !== undefined, m[3]],
      ),
    ).toEqual([
      [`/pay/${payment.id}?network=${TEST_CHAIN.chainId}&lang=en`, true, 'Polygon'],
      [`/pay/${payment.id}?network=8453&lang=en`, false, 'Base'],
      [`/pay/${payment.id}?network=42161&lang=en`, false, 'Arbitrum'],
    ]);
    // Without the script, the home chain's request, token and QR code are the ones shown.
    expect(paymentLinkOf(page)).toBe(linkOn(payment, TEST_CHAIN.tokenAddress, TEST_CHAIN.chainId));
    expect(page).toContain(`id="token-address">${TEST_CHAIN.tokenAddress}<`);
    expect(page).toContain(`src="/pay/${payment.id}/qr.svg?chain=${TEST_CHAIN.chainId}&amp;amount=27000000"`);
    expect(page).toContain(`<dd data-network-label>Polygon · chain ID ${TEST_CHAIN.chainId}</dd>`);
    // The copyable address is the one address of every network.
    expect(page.match(/<code id="deposit-address" class="address">([^<]+)</)?.[1]).toBe(
      payment.deposit!.depositAddress,
    );
    // Gasless only where the network takes it.
    expect(page).toMatch(/value="8453"[^>]*data-gasless-here=""/);
  });

  it('names every network that works in the warning, in each language', async () => {
    const payment = await createPayment();
    const warningTitle = async (lang: string) =>
      (await get(`/pay/${payment.id}?lang=${lang}`)).body.match(
        /<div class="warning" role="note">\s*<p><strong>([^<]+)</,
      )?.[1];
    expect(await warningTitle('en')).toBe('Send USDC on Polygon, Base or Arbitrum only');
    expect(await warningTitle('fr')).toBe('Envoyez de l’USDC uniquement sur Polygon, Base ou Arbitrum');
    expect(await warningTitle('de')).toBe('Senden Sie USDC nur auf Polygon, Base oder Arbitrum');
    expect(await warningTitle('es')).toBe('Envíe USDC solo en Polygon, Base o Arbitrum');
  });

  it('shows the network chosen without the script (?network=), and home for one not offered', async () => {
    const payment = await createPayment();
    const onBase = (await get(`/pay/${payment.id}?network=8453&lang=en`)).body;
    expect(radios(onBase).find((r) => r.checked)?.chainId).toBe(8453);
    expect(paymentLinkOf(onBase)).toBe(linkOn(payment, BASE.usdcAddress, 8453));
    expect(onBase).toContain(`id="token-address">${BASE.usdcAddress}<`);
    expect(onBase).toContain(`src="/pay/${payment.id}/qr.svg?chain=8453&amp;amount=27000000"`);
    expect(onBase).toContain('<dd data-network-label>Base · chain ID 8453</dd>');
    // The wallet's settings are Base's, so a wallet is asked for that chain.
    expect(onBase).toMatch(/data-chain-id="8453"/);
    expect(onBase).toContain(`href="/pay/${payment.id}?network=8453&lang=en" aria-current="true">Base<`);
    // The language links keep the network chosen; the network links keep the page's language.
    expect(onBase).toContain('<a href="?network=8453&amp;lang=fr" hreflang="fr"');
    expect((await get(`/pay/${payment.id}?lang=fr`)).body).toContain(
      `href="/pay/${payment.id}?network=8453&lang=fr"`,
    );
    for (const other of ['1', 'abc', '8453x', '']) {
      const page = (await get(`/pay/${payment.id}?network=${other}`)).body;
      expect(radios(page).find((r) => r.checked)?.chainId).toBe(TEST_CHAIN.chainId);
    }
  });

  it('draws each network’s QR code from its own request, and none for a chain not offered', async () => {
    const payment = await createPayment();
    const qr = async (query: string) => get(`/pay/${payment.id}/qr.svg?${query}`);
    expect((await qr('chain=8453&amount=1')).body).toBe(await qrSvg(linkOn(payment, BASE.usdcAddress, 8453)));
    expect((await qr('chain=42161')).body).toBe(await qrSvg(linkOn(payment, ARBITRUM.usdcAddress, 42161)));
    const home = await qrSvg(linkOn(payment, TEST_CHAIN.tokenAddress, TEST_CHAIN.chainId));
    expect((await qr(`chain=${TEST_CHAIN.chainId}`)).body).toBe(home);
    expect((await qr('amount=1')).body).toBe(home);
    for (const query of ['chain=1', 'chain=abc', 'chain=', 'chain=-8453'])
      expect((await qr(query)).statusCode).toBe(404);
    // The address alone is the same code whatever the chain.
    expect((await qr('kind=address&chain=8453')).body).toBe(await qrSvg(payment.deposit!.depositAddress));
  });

  it('lists each network’s request in status.json, for the page to follow a partial payment', async () => {
    const payment = await createPayment();
    const status = (await get(`/pay/${payment.id}/status.json`)).json();
    expect(status.networks).toEqual([
      {
        chain_id: TEST_CHAIN.chainId,
        payment_link: linkOn(payment, TEST_CHAIN.tokenAddress, TEST_CHAIN.chainId),
      },
      { chain_id: 8453, payment_link: linkOn(payment, BASE.usdcAddress, 8453) },
      { chain_id: 42161, payment_link: linkOn(payment, ARBITRUM.usdcAddress, 42161) },
    ]);
  });

  it('offers a payment on an older factory its home chain alone, with the one-network warning', async () => {
    const payment = await createPayment();
    const page = (await get(`/pay/${payment.id}`, olderCheckout)).body;
    expect(radios(page)).toEqual([]);
    expect(page).not.toContain('data-network-choice');
    expect(page).toContain('Send only USDC on Polygon');
    expect(page).not.toContain('Base');
    expect(paymentLinkOf(page)).toBe(linkOn(payment, TEST_CHAIN.tokenAddress, TEST_CHAIN.chainId));
    expect(page).toContain(`src="/pay/${payment.id}/qr.svg?amount=27000000"`);
    expect((await get(`/pay/${payment.id}/qr.svg?chain=8453`, olderCheckout)).statusCode).toBe(404);
    expect((await get(`/pay/${payment.id}/status.json`, olderCheckout)).json().networks).toHaveLength(1);
  });
});
