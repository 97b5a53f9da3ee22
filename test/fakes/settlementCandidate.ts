import type { SettlementCandidate } from '../../src/app/settlement/ports.ts';
import { NO_PAYOUT_YET } from '../../src/domain/payout.ts';
import { CHAIN_ID, depositAddress, testPayment, USDC } from './paymentFixture.ts';

export const FACTORY = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
export const MERCHANT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
export const TREASURY = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';

/** Payment `n` (paymentFixture's) due for a flush of 1 USDC of USDC, through FACTORY, nothing paid out yet. */
export function settlementCandidate(
  n: number,
  fields: Partial<SettlementCandidate> = {},
): SettlementCandidate {
  return {
    paymentId: testPayment(n).id,
    chainId: CHAIN_ID,
    factoryAddress: FACTORY,
    tokenAddress: USDC,
    acceptedToken: true,
    depositAddress: depositAddress(n),
    merchantAddress: MERCHANT,
    treasuryAddress: TREASURY,
    commissionBps: 100,
    unsettledBaseUnits: 1_000_000n,
    payout: NO_PAYOUT_YET,
    ...fields,
  };
}
