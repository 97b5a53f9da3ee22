import { describe, expect, it } from 'vitest';
import { testPayment } from '../../../test/fakes/paymentFixture.ts';
import { type ModeNetworks, paymentNetworks } from '../checkout/paymentNetworks.ts';
import { createPaymentResponse } from './presenters.ts';
import { CreatePaymentResponse } from './schemas.ts';

/** The quote states where the customer may pay and what each network's CCTP transfer may cost (decision 0034). */
const payment = testPayment(1);
const home = {
  chainId: payment.deposit!.chainId,
  name: 'Polygon',
  role: 'home' as const,
  usdcAddress: payment.deposit!.tokenAddress,
  publicRpcUrl: undefined,
  explorerUrl: '',
  nativeCurrencySymbol: 'POL',
  gasless: false,
};
const source = (chainId: number, name: string, speed: 'fast' | 'standard', maxFeeBps: number) => ({
  ...home,
  chainId,
  name,
  role: 'source' as const,
  usdcAddress: `0x${chainId.toString(16).padStart(40, '0')}`,
  cctp: { speed, maxFeeBps },
});

describe('the create response quote', () => {
  it('lists home (no fee) then each source with its speed and fee cap, borne by the merchant share', () => {
    const mode: ModeNetworks = {
      chains: [home, source(8453, 'Base', 'fast', 10), source(42161, 'Arbitrum', 'standard', 0)],
      v3FactoryAddress: payment.deposit!.factoryAddress,
    };
    const response = createPaymentResponse(
      payment,
      'https://pay.example',
      paymentNetworks(payment.deposit!, mode),
    );
    expect(response.details).toMatchObject({
      networks: [
        { chain_id: payment.deposit!.chainId, name: 'Polygon', cctp: null },
        { chain_id: 8453, name: 'Base', cctp: { speed: 'fast', max_fee_bps: 10 } },
        { chain_id: 42161, name: 'Arbitrum', cctp: { speed: 'standard', max_fee_bps: 0 } },
      ],
      cctp_fee_borne_by: 'merchant_share',
      // The customer pays the quoted amount whatever the network; the share quoted is the home chain's.
      usdc_amount: '10.00',
    });
    expect(CreatePaymentResponse.parse(response)).toEqual(response);
  });

  it('says nothing of networks for a payment paid on its home chain alone', () => {
    const alone = paymentNetworks(payment.deposit!, { chains: [home], v3FactoryAddress: undefined });
    const response = createPaymentResponse(payment, 'https://pay.example', alone);
    expect(response.details).not.toHaveProperty('networks');
    expect(response.details).not.toHaveProperty('cctp_fee_borne_by');
    expect(response).toEqual(createPaymentResponse(payment, 'https://pay.example'));
  });
});
