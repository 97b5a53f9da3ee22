/**
 * The create response's quote over the merchant API (decision 0034): where the checkout offers other chains, the
 * quote lists them with their CCTP speed and fee cap and says the fee comes out of the merchant's share; a
 * deployment without them answers exactly as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ModeNetworks,
  modeOfHomeChain,
  type NetworkCandidate,
  paymentNetworks,
} from '../../src/adapters/checkout/paymentNetworks.ts';
import { type ApiHarness, startApiHarness, TEST_CHAIN } from '../helpers/apiHarness.ts';
import { dialects } from '../helpers/database.ts';

const HOME: NetworkCandidate = {
  chainId: TEST_CHAIN.chainId,
  name: 'Polygon',
  role: 'home',
  usdcAddress: TEST_CHAIN.tokenAddress,
  publicRpcUrl: undefined,
  explorerUrl: '',
  nativeCurrencySymbol: 'POL',
  gasless: false,
};
const source = (chainId: number, name: string, speed: 'fast' | 'standard', maxFeeBps: number) => ({
  ...HOME,
  chainId,
  name,
  role: 'source' as const,
  usdcAddress: `0x${chainId.toString(16).padStart(40, '0')}`,
  cctp: { speed, maxFeeBps },
});
const MODE: ModeNetworks = {
  chains: [HOME, source(8453, 'Base', 'fast', 10), source(42161, 'Arbitrum', 'standard', 0)],
  v3FactoryAddress: TEST_CHAIN.factoryAddress.toLowerCase(),
};

describe.each(dialects)('the quote of a payment payable on several chains, on %s', (dialect) => {
  let withSources: ApiHarness;
  let homeOnly: ApiHarness;

  beforeAll(async () => {
    withSources = await startApiHarness(dialect, {
      overrides: {
        networksOf: (deposit) => paymentNetworks(deposit, modeOfHomeChain([MODE], deposit.chainId)),
      },
    });
    homeOnly = await startApiHarness(dialect);
  });
  afterAll(async () => {
    await withSources?.close();
    await homeOnly?.close();
  });

  async function create(h: ApiHarness) {
    const { apiKey } = await h.merchant({ name: 'Corner Café' });
    const response = await h.app.inject({
      method: 'POST',
      url: '/payments/api/create/',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      payload: JSON.stringify({ amount: '27.00', currency: 'USDC' }),
    });
    expect(response.statusCode).toBe(201);
    return response.json().details;
  }

  it('lists each network with its speed and fee cap, the fee borne by the merchant share', async () => {
    const details = await create(withSources);
    expect(details.networks).toEqual([
      { chain_id: TEST_CHAIN.chainId, name: 'Polygon', cctp: null },
      { chain_id: 8453, name: 'Base', cctp: { speed: 'fast', max_fee_bps: 10 } },
      { chain_id: 42161, name: 'Arbitrum', cctp: { speed: 'standard', max_fee_bps: 0 } },
    ]);
    expect(details.cctp_fee_borne_by).toBe('merchant_share');
    expect(details.usdc_amount).toBe('27.00');
  });

  it('says nothing of networks where the payment is paid on its home chain alone', async () => {
    const details = await create(homeOnly);
    expect(Object.keys(details)).not.toContain('networks');
    expect(Object.keys(details)).not.toContain('cctp_fee_borne_by');
    expect(details.usdc_amount).toBe('27.00');
  });
});
