import { describe, expect, it } from 'vitest';
import { formatNative, listRelayers, type RelayerChain } from './listRelayers.ts';
import type { RelayerBalanceReading } from './ports.ts';

const LOW = 1_000_000_000_000_000_000n; // 1 POL
const polygon: RelayerChain = {
  chainId: 137,
  name: 'Polygon',
  role: 'home',
  nativeSymbol: 'POL',
  lowBalanceWei: LOW,
};
const base: RelayerChain = {
  chainId: 8453,
  name: 'Base',
  role: 'source',
  nativeSymbol: 'ETH',
  lowBalanceWei: 5n,
};
const observedAt = new Date('2026-12-04T21:00:00.000Z');
const reading = (chainId: number, balanceWei: bigint, lowBalanceWei = LOW): RelayerBalanceReading => ({
  chainId,
  address: `0x${String(chainId).padStart(40, '0')}`,
  balanceWei,
  lowBalanceWei,
  observedAt,
});
const list = (readings: RelayerBalanceReading[], chains = [polygon]) =>
  listRelayers({ settlements: { relayerBalances: async () => readings } }, chains);

describe('listRelayers', () => {
  it('is low one wei below the threshold the reading was taken with, not at it', async () => {
    const [below] = await list([reading(137, LOW - 1n)]);
    expect(below).toMatchObject({ balance: '0.999999999999999999', low_balance: '1', low: true });
    const [at] = await list([reading(137, LOW)]);
    expect(at).toMatchObject({ balance: '1', low: false });
    // The reading's own threshold, not the configured one: it is what the settler warned with.
    const [own] = await list([reading(137, LOW, LOW + 1n)]);
    expect(own).toMatchObject({ low_balance: '1.000000000000000001', low: true });
  });

  it('shows a chain never read with the configured threshold, nothing known, and not low', async () => {
    expect(await list([])).toEqual([
      {
        chain_id: 137,
        chain_name: 'Polygon',
        role: 'home',
        native_symbol: 'POL',
        address: null,
        balance: null,
        low_balance: '1',
        low: false,
        observed_at: null,
      },
    ]);
  });

  it('lists configured chains in their order, then chains no longer configured by id, each low at its own threshold', async () => {
    const views = await list(
      [reading(10, 4n, 5n), reading(8453, 5n, 5n), reading(1, 5n, 5n), reading(137, LOW)],
      [polygon, base],
    );
    expect(views.map((v) => [v.chain_id, v.chain_name, v.role, v.native_symbol, v.low])).toEqual([
      [137, 'Polygon', 'home', 'POL', false],
      [8453, 'Base', 'source', 'ETH', false],
      [1, null, null, null, false],
      [10, null, null, null, true],
    ]);
    expect(views[3]).toEqual({
      chain_id: 10,
      chain_name: null,
      role: null,
      native_symbol: null,
      address: `0x${'10'.padStart(40, '0')}`,
      balance: '0.000000000000000004',
      low_balance: '0.000000000000000005',
      low: true,
      observed_at: '2026-12-04T21:00:00.000Z',
    });
    expect(views[0]).toMatchObject({
      address: `0x${'137'.padStart(40, '0')}`,
      observed_at: '2026-12-04T21:00:00.000Z',
    });
  });

  it('formats wei exactly, with 18 decimals at most', () => {
    expect(formatNative(1n)).toBe('0.000000000000000001');
    expect(formatNative(123_456_789_000_000_000_000n)).toBe('123.456789');
  });
});
