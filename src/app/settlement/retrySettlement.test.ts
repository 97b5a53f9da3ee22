import { describe, expect, it } from 'vitest';
import type { SettlementStore } from './ports.ts';
import { retrySettlement } from './retrySettlement.ts';

/** A store whose `retryNow` answers `count` and records what it was asked. */
function store(count: number) {
  const asked: Parameters<SettlementStore['retryNow']>[0][] = [];
  const settlements = {
    retryNow: async (target: Parameters<SettlementStore['retryNow']>[0]) => {
      asked.push(target);
      return count;
    },
  } as unknown as SettlementStore;
  return { settlements, asked };
}

describe('retrySettlement', () => {
  it('ends one payment’s back-off, its id read as typed (spaces, capitals)', async () => {
    const { settlements, asked } = store(1);
    expect(await retrySettlement({ settlements }, { paymentId: ' 6F1C1F2E-8A4B ' })).toBe(1);
    expect(asked).toEqual([{ paymentId: '6f1c1f2e-8a4b' }]);
  });

  it('is NOT_FOUND for a payment with no payout waiting', async () => {
    await expect(retrySettlement(store(0), { paymentId: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'No payment with a payout waiting has this id',
    });
  });

  it('ends every back-off, and answers how many there were, none included', async () => {
    for (const count of [0, 3]) {
      const { settlements, asked } = store(count);
      expect(await retrySettlement({ settlements }, { all: true })).toBe(count);
      expect(asked).toEqual([{ all: true }]);
    }
  });
});
