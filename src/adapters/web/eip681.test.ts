import { describe, expect, it } from 'vitest';
import { eip681TransferLink } from './eip681.ts';

const USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const DEPOSIT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('eip681TransferLink', () => {
  it('writes an ERC-20 transfer request with the chain id and the amount in plain base-unit digits', () => {
    expect(
      eip681TransferLink({
        tokenAddress: USDC,
        chainId: 137,
        recipient: DEPOSIT,
        amountBaseUnits: 27_000_000n,
      }),
    ).toBe(`ethereum:${USDC}@137/transfer?address=${DEPOSIT}&uint256=27000000`);
  });

  it('never uses exponent notation, however large or round the amount', () => {
    const link = eip681TransferLink({
      tokenAddress: USDC,
      chainId: 137,
      recipient: DEPOSIT,
      amountBaseUnits: 10n ** 24n,
    });
    expect(link.split('&uint256=')[1]).toBe(`1${'0'.repeat(24)}`);
  });

  it('checksums lowercase addresses', () => {
    expect(
      eip681TransferLink({
        tokenAddress: USDC.toLowerCase(),
        chainId: 31337,
        recipient: DEPOSIT.toLowerCase(),
        amountBaseUnits: 1n,
      }),
    ).toBe(`ethereum:${USDC}@31337/transfer?address=${DEPOSIT}&uint256=1`);
  });

  it('refuses a malformed address, a negative amount and a bad chain id', () => {
    const valid = { tokenAddress: USDC, chainId: 137, recipient: DEPOSIT, amountBaseUnits: 1n };
    expect(() => eip681TransferLink({ ...valid, recipient: '0x1234' })).toThrow();
    expect(() => eip681TransferLink({ ...valid, tokenAddress: 'javascript:alert(1)' })).toThrow();
    expect(() => eip681TransferLink({ ...valid, amountBaseUnits: -1n })).toThrow(RangeError);
    expect(() => eip681TransferLink({ ...valid, chainId: 0 })).toThrow(RangeError);
    expect(() => eip681TransferLink({ ...valid, chainId: 1.5 })).toThrow(RangeError);
  });
});
