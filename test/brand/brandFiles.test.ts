import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectImage } from '../../src/adapters/dashboard/brandPages.ts';
import { updateBrand } from '../../src/app/brand/updateBrand.ts';
import { type Brand, DEFAULT_LOGO_RULES } from '../../src/domain/brand.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { solidPng } from '../helpers/images.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

const LOGO = solidPng(64, 32, [0x1d, 0x4e, 0xd8]);

/**
 * The merchant's logo and colour as the checkout serves them (decision 0052), over a real socket: the exact type,
 * nosniff, a policy that allows nothing, cached for good; an old or unknown URL is a 404.
 */
describe("a merchant's logo and colour, served by the checkout", () => {
  let h: ApiHarness;
  let checkout: FastifyInstance;
  let base: string;
  let merchantId: string;
  let brand: Brand;

  beforeAll(async () => {
    h = await startApiHarness('sqlite');
    merchantId = (await h.merchant({ name: 'Corner Roastery' })).id;
    brand = await updateBrand(
      { brands: h.stores.brands, clock: h.clock, logoRules: DEFAULT_LOGO_RULES },
      merchantId,
      {
        displayName: '',
        colour: '#1D4ED8',
        logo: { bytes: LOGO, image: detectImage(LOGO) },
      },
    );
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: { name: 'Sandbox (local anvil)', chainId: TEST_CHAIN.chainId, explorerUrl: '' },
    });
    base = await checkout.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await checkout?.close();
    await h?.close();
  });

  const expectFileHeaders = (answer: Response, type: string) => {
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe(type);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  };

  it('serves the logo byte for byte under its hash', async () => {
    const answer = await fetch(`${base}/brand/${merchantId}/${brand.logo?.hash}.png`);
    expectFileHeaders(answer, 'image/png');
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(LOGO);
  });

  it("serves the colour as the checkout's accent variables", async () => {
    const answer = await fetch(`${base}/brand/${merchantId}/1d4ed8.css`);
    expectFileHeaders(answer, 'text/css; charset=utf-8');
    expect(await answer.text()).toBe(':root{--accent:#1d4ed8;--accent-dark:#173ead}\n');
  });

  it.each([
    ['another hash', () => `/brand/${merchantId}/${'0'.repeat(64)}.png`],
    ['the logo under another kind', () => `/brand/${merchantId}/${brand.logo?.hash}.webp`],
    ['another colour', () => `/brand/${merchantId}/000000.css`],
    ['another merchant', () => `/brand/00000000-0000-4000-8000-000000000000/1d4ed8.css`],
    ['a file of no known shape', () => `/brand/${merchantId}/logo.svg`],
  ])('answers %s with 404', async (_name, path) => {
    expect((await fetch(`${base}${path()}`)).status).toBe(404);
  });
});
