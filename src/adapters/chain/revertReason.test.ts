import { encodeErrorResult, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { describeRevertData, ERC20_ERRORS } from './revertReason.ts';

const abi = [...ERC20_ERRORS, { type: 'error', name: 'ZeroAddress', inputs: [] }] as const;

describe('revert reasons, as operators read them', () => {
  it("gives a require message in the token's own words", () => {
    const data = encodeErrorResult({
      abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string' }] }],
      errorName: 'Error',
      args: ['Blacklistable: account is blacklisted'],
    });
    expect(describeRevertData(data, abi)).toBe('Blacklistable: account is blacklisted');
  });

  it('names a custom error with its arguments', () => {
    const data = encodeErrorResult({
      abi,
      errorName: 'ERC20InsufficientBalance',
      args: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 1n, 2n],
    });
    expect(describeRevertData(data, abi)).toBe(
      'ERC20InsufficientBalance(sender=0x70997970C51812dc3A010C7d01b50e0d17dc79C8, balance=1, needed=2)',
    );
    expect(describeRevertData(encodeErrorResult({ abi, errorName: 'ZeroAddress' }), abi)).toBe(
      'ZeroAddress()',
    );
  });

  it('says what a panic means', () => {
    const panic = (code: bigint) =>
      encodeErrorResult({
        abi: [{ type: 'error', name: 'Panic', inputs: [{ type: 'uint256' }] }],
        errorName: 'Panic',
        args: [code],
      });
    expect(describeRevertData(panic(0x11n), abi)).toBe('panic 0x11: arithmetic overflow or underflow');
    expect(describeRevertData(panic(0x99n), abi)).toBe('panic 0x99: unknown panic');
  });

  it('says when there is no reason, or one it does not know', () => {
    expect(describeRevertData(undefined, abi)).toBe('reverted without a reason');
    expect(describeRevertData('0x', abi)).toBe('reverted without a reason');
    expect(describeRevertData('0xdeadbeef0000' as Hex, abi)).toBe('reverted with unknown error 0xdeadbeef');
  });

  it('keeps a long or multi-line message to one readable line', () => {
    const data = encodeErrorResult({
      abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string' }] }],
      errorName: 'Error',
      args: [`line one\n\tline two ${'x'.repeat(400)}`],
    });
    const reason = describeRevertData(data, abi);
    expect(reason.startsWith('line one line two xxx')).toBe(true);
    expect(reason.length).toBe(200);
    expect(reason.endsWith('…')).toBe(true);
  });
});
