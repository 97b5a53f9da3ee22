import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRelayerBalance } from '../../src/adapters/db/relayerRecords.ts';
import { runCli } from '../helpers/cli.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';

const POLYGON_RELAYER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const BASE_RELAYER = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const OPTIMISM_RELAYER = '0x90f79bf6eb2c4f870365e785982e1f101e93b906';

/**
 * `paylink settlements relayers`, as an operator runs it: Polygon at home with Base and Avalanche as source
 * chains, each relayer's last reading as its settler or bridge job recorded it (relayer_accounts).
 */
describe.each(dialects)('paylink settlements relayers on %s', (dialect) => {
  let database: TestDatabase;
  const env = () => ({
    PAYLINK_DATABASE_URL: database.url,
    PAYLINK_NETWORK: 'polygon',
    PAYLINK_CHAINS: 'base, avalanche',
    PAYLINK_BASE_RPC_URL: 'https://base.example',
    PAYLINK_AVALANCHE_RPC_URL: 'https://avalanche.example',
  });
  const read = (chainId: number, address: string, balanceWei: bigint, lowBalanceWei: bigint, at: string) =>
    recordRelayerBalance(database.handle.db, {
      chainId,
      address,
      balanceWei,
      lowBalanceWei,
      observedAt: new Date(at),
    });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    // Exactly at its threshold: not low (LOW is strictly below).
    await read(137, POLYGON_RELAYER, 10n ** 18n, 10n ** 18n, '2026-11-27T10:00:00.000Z');
    // One wei under 0.005 ETH: low, and a JS number could not even print it.
    await read(8453, BASE_RELAYER, 5n * 10n ** 15n - 1n, 5n * 10n ** 15n, '2026-11-27T10:01:00.000Z');
    // A chain no longer configured whose relayer may still hold gas.
    await read(
      10,
      OPTIMISM_RELAYER,
      123_456_789_012_345_678_901n,
      5n * 10n ** 15n,
      '2026-11-27T09:00:00.000Z',
    );
  });
  afterAll(() => database?.drop());

  it('lists each chain in configured order, its balance exact in its native token, LOW below, exit code 1', async () => {
    const result = await runCli(['settlements', 'relayers'], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CHAIN\s+NAME\s+ROLE\s+RELAYER\s+BALANCE\s+THRESHOLD\s+READ AT$/);
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(
      new RegExp(
        `^137\\s+Polygon\\s+home\\s+${POLYGON_RELAYER}\\s+1 POL\\s+1 POL\\s+2026-11-27T10:00:00.000Z$`,
      ),
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^8453\\s+Base\\s+source\\s+${BASE_RELAYER}\\s+0\\.004999999999999999 ETH\\s+0\\.005 ETH\\s+LOW\\s+2026-11-27T10:01:00.000Z$`,
      ),
    );
    expect(lines[3]).toMatch(/^43114\s+Avalanche C-Chain\s+source\s+-\s+never read\s+0\.5 AVAX\s+-$/);
    expect(lines[4]).toMatch(
      new RegExp(
        `^10\\s+\\(not configured\\)\\s+-\\s+${OPTIMISM_RELAYER}\\s+123\\.456789012345678901\\s+0\\.005\\s+2026-11-27T09:00:00.000Z$`,
      ),
    );
  });

  it('prints the same as JSON with --json, amounts as exact strings', async () => {
    const result = await runCli(['settlements', 'relayers', '--json'], env());
    expect(result.code).toBe(1);
    const { relayers } = JSON.parse(result.stdout) as { relayers: Record<string, unknown>[] };
    expect(relayers.map((r) => [r.chain_id, r.role, r.low])).toEqual([
      [137, 'home', false],
      [8453, 'source', true],
      [43114, 'source', false],
      [10, null, false],
    ]);
    expect(relayers[1]).toEqual({
      chain_id: 8453,
      chain_name: 'Base',
      role: 'source',
      native_symbol: 'ETH',
      address: BASE_RELAYER,
      balance: '0.004999999999999999',
      low_balance: '0.005',
      low: true,
      observed_at: '2026-11-27T10:01:00.000Z',
    });
    expect(relayers[2]).toMatchObject({
      address: null,
      balance: null,
      low_balance: '0.5',
      observed_at: null,
    });
  });

  it('exits 0 once no relayer is below its threshold (one at exactly it is not low)', async () => {
    await read(8453, BASE_RELAYER, 5n * 10n ** 15n, 5n * 10n ** 15n, '2026-11-27T10:02:00.000Z');
    const result = await runCli(['settlements', 'relayers'], env());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('LOW ');
    expect(result.stdout).toMatch(
      /8453\s+Base\s+source\s+\S+\s+0\.005 ETH\s+0\.005 ETH\s+2026-11-27T10:02:00.000Z/,
    );
  });
});
