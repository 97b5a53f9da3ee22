import { describe, expect, it } from 'vitest';
import { ChainMovedError } from './blockReads.ts';
import type { BlockHeader, TransferLog } from './ports.ts';
import { recordsOf, type WatchedToken } from './transferRecords.ts';

const USDC: WatchedToken = { address: '0xusdc', symbol: 'USDC', decimals: 6, accepted: true };
const USDT: WatchedToken = { address: '0xusdt', symbol: 'USDT', decimals: 6, accepted: false };
const HEADER: BlockHeader = { number: 7n, hash: '0xAB', timestamp: new Date('2026-12-05T00:00:00Z') };
const SEEN = new Date('2026-12-05T00:01:00Z');

function log(changes: Partial<TransferLog> = {}): TransferLog {
  return {
    token: '0xUSDC',
    txHash: '0xTX',
    logIndex: 3,
    blockNumber: 7n,
    blockHash: '0xab',
    from: '0xFROM',
    to: '0xDEPOSIT',
    amountBaseUnits: 10_000_000n,
    ...changes,
  };
}

const range = {
  chainId: 137,
  tokens: new Map([
    ['0xusdc', USDC],
    ['0xusdt', USDT],
  ]),
  owners: new Map([['0xdeposit', 'pay_1']]),
  headers: new Map([[7n, HEADER]]),
  seenAt: SEEN,
};

describe('recordsOf', () => {
  it('records an accepted token’s transfer as paying, not final, lowercase, its id its place in the block', () => {
    expect(recordsOf([log()], range)).toEqual({
      transfers: [
        {
          id: '137:0xab:3',
          chainId: 137,
          paymentId: 'pay_1',
          txHash: '0xtx',
          logIndex: 3,
          blockNumber: 7n,
          blockHash: '0xab',
          blockTimestamp: HEADER.timestamp,
          tokenAddress: '0xusdc',
          tokenSymbol: 'USDC',
          fromAddress: '0xfrom',
          toAddress: '0xdeposit',
          amountBaseUnits: 10_000_000n,
          final: false,
          orphaned: false,
        },
      ],
      unaccepted: [],
    });
  });

  it('reports a noticed token’s transfer with its decimals and when it was seen, and never as paying', () => {
    const { transfers, unaccepted } = recordsOf([log({ token: '0xUSDT', logIndex: 4 })], range);
    expect(transfers).toEqual([]);
    expect(unaccepted).toEqual([
      {
        id: '137:0xab:4',
        chainId: 137,
        paymentId: 'pay_1',
        txHash: '0xtx',
        blockNumber: 7n,
        blockHash: '0xab',
        tokenAddress: '0xusdt',
        tokenSymbol: 'USDT',
        tokenDecimals: 6,
        amountBaseUnits: 10_000_000n,
        fromAddress: '0xfrom',
        seenAt: SEEN,
      },
    ]);
  });

  it('refuses the range when a log is not in the block read at its height (reorged while read)', () => {
    expect(() => recordsOf([log({ blockHash: '0xcd' })], range)).toThrow(
      new ChainMovedError('block 7 was reorged during the scan'),
    );
    expect(() => recordsOf([log({ blockNumber: 8n })], range)).toThrow(ChainMovedError);
  });

  it('refuses a log of a token not asked for, or to an address no payment owns', () => {
    expect(() => recordsOf([log({ token: '0xdai' })], range)).toThrow(
      'a log of 0xdai, which was not asked for',
    );
    expect(() => recordsOf([log({ to: '0xelse' })], range)).toThrow('a log to 0xelse, which no payment owns');
  });
});
