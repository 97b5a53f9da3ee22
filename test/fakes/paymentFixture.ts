import { getAddress } from 'viem';
import type { TransferRecord, UnacceptedTransfer } from '../../src/app/chain/ports.ts';
import { findCurrency } from '../../src/domain/currencies.ts';
import { newPayment, type Payment } from '../../src/domain/payment.ts';
import { quote } from '../../src/domain/quote.ts';

export const CHAIN_ID = 137;
/** Polygon's USDC, lowercase as the watcher's token list holds it. */
export const USDC = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359';
export const USDC_E = '0x2791bca1f2de4661ed88a30c99a7a9449aa84174';
export const USDT = '0xc2132d05d31c914a87c6611c10748aeb04b58e8f';

/** A distinct checksummed deposit address per number. */
export function depositAddress(n: number): string {
  return getAddress(`0xdeadbeef${n.toString(16).padStart(32, '0')}`);
}

/**
 * A USDC payment as the store holds it after creation: `pending`, nothing received, 10 USDC (1 % commission)
 * at deposit address `n` on CHAIN_ID unless `overrides` say otherwise.
 */
export function testPayment(n: number, overrides: Partial<Payment> = {}): Payment {
  const usdc = findCurrency('USDC');
  if (!usdc) throw new Error('USDC is a currency');
  const createdAt = overrides.createdAt ?? new Date('2026-01-01T00:10:00.000Z');
  return {
    ...newPayment({
      id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
      kind: 'payment',
      merchantId: 'mch_1',
      mode: 'live',
      quote: quote({ currency: usdc, minorUnits: 10_000_000n }, { units: 1n, scale: 0 }, 100),
      rateSource: 'fixed',
      rateObservedAt: createdAt,
      underpaymentToleranceBps: 0,
      payoutAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      expiresAt: new Date(createdAt.getTime() + 3_600_000),
      createdAt,
      deposit: {
        chainId: CHAIN_ID,
        tokenAddress: getAddress(USDC),
        factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
        treasuryAddress: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
        depositAddress: depositAddress(n),
      },
    }),
    ...overrides,
  };
}

/** A USDC transfer of 10 USDC to `payment`'s deposit address in `block`, final unless `fields` say otherwise. */
export function testTransfer(
  payment: Payment,
  block: number,
  fields: Partial<TransferRecord> = {},
): TransferRecord {
  return {
    id: `${CHAIN_ID}:0x${block.toString(16).padStart(64, '0')}:${fields.logIndex ?? 0}`,
    chainId: CHAIN_ID,
    paymentId: payment.id,
    txHash: `0x${block.toString(16).padStart(64, 'a')}`,
    logIndex: 0,
    blockNumber: BigInt(block),
    blockHash: `0x${block.toString(16).padStart(64, '0')}`,
    blockTimestamp: new Date(Date.parse('2026-01-01T00:20:00.000Z') + block * 1000),
    tokenAddress: USDC,
    tokenSymbol: 'USDC',
    fromAddress: '0x00000000000000000000000000000000000000aa',
    toAddress: payment.deposit!.depositAddress.toLowerCase(),
    amountBaseUnits: 10_000_000n,
    final: true,
    orphaned: false,
    ...fields,
  };
}

/** A USDT transfer (a token the payment does not accept) to `payment`'s deposit address in block 7, seen at 00:30. */
export function testUnaccepted(payment: Payment, amountBaseUnits = 5_000_000n): UnacceptedTransfer {
  return {
    id: `${CHAIN_ID}:0x${'1'.repeat(64)}:0`,
    chainId: CHAIN_ID,
    paymentId: payment.id,
    txHash: `0x${'2'.repeat(64)}`,
    blockNumber: 7n,
    blockHash: `0x${'1'.repeat(64)}`,
    tokenAddress: USDT,
    tokenSymbol: 'USDT',
    tokenDecimals: 6,
    amountBaseUnits,
    fromAddress: '0x00000000000000000000000000000000000000aa',
    seenAt: new Date('2026-01-01T00:30:00.000Z'),
  };
}
