import { describe, expect, it } from 'vitest';
import { isOwnSettlementMint } from './crossChain.ts';
import type { TransferLog } from './ports.ts';

/** Our own CCTP settlement's mint into a deposit address is not a payment; a customer's CCTP transfer is. */
const DEPOSIT = '0x00000000000000000000000000000000000000De';

const mint = (cctpBurnSender: string | undefined): TransferLog => ({
  token: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359',
  txHash: `0x${'1'.repeat(64)}`,
  logIndex: 0,
  blockNumber: 10n,
  blockHash: `0x${'2'.repeat(64)}`,
  from: '0x0000000000000000000000000000000000000000',
  to: DEPOSIT,
  amountBaseUnits: 1_000_000n,
  cctpBurnSender,
});

describe('isOwnSettlementMint', () => {
  it('is a mint of a burn whose sender is the deposit address itself, read in lowercase', () => {
    expect(isOwnSettlementMint(mint(DEPOSIT.toLowerCase()))).toBe(true);
  });

  it("is not a customer's CCTP transfer (another sender), nor a transfer with no burn behind it", () => {
    expect(isOwnSettlementMint(mint('0x00000000000000000000000000000000000000aa'))).toBe(false);
    expect(isOwnSettlementMint(mint(undefined))).toBe(false);
  });
});
