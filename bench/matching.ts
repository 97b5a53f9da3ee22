import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { migrateToLatest, openDatabase } from '../src/adapters/db/database.ts';
import { ledgerRepository } from '../src/adapters/db/ledgerRepository.ts';
import { fmt, isMain, timed } from './support.ts';

/**
 * Matching throughput: how many Transfer logs per second the watcher matches against 1,000,000 open deposit
 * addresses on SQLite (goal ≥ 200,000/s), next to the ideal baseline of the same lookups in an in-memory Set
 * measured in the same run.
 */
const OPEN_PAYMENTS = 1_000_000;
const LOGS = 200_000;
const OURS_SHARE = 0.01; // a busy token: ~1% of its transfers are to us
const CHAIN_ID = 137;

const address = () => `0x${randomBytes(20).toString('hex')}`;

export async function runMatchingBench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-bench-'));
  const handle = openDatabase(`sqlite:${join(dir, 'bench.db')}`);
  try {
    await migrateToLatest(handle.db);
    await handle.db
      .insertInto('merchants')
      .values({
        id: 'mch_bench',
        name: 'Bench',
        wallet_address: null,
        webhook_url: null,
        webhook_secret: 'whsec_x',
        commission_bps: 0,
        underpayment_tolerance_bps: 0,
        status: 'active',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
    const deposits: string[] = [];
    // Set-up only (not measured): a raw prepared statement in one transaction is ~20x faster than a query builder.
    const insert = await timed(async () => {
      const raw = new SQLite(join(dir, 'bench.db'));
      const statement = raw.prepare(
        `insert into payments (id, merchant_id, amount_minor_units, currency, exchange_rate, rate_source, rate_observed_at,
          usdc_amount_base_units, commission_bps, commission_base_units, merchant_share_base_units,
          underpayment_tolerance_bps, payout_address, status, amount_received_base_units, late, expires_at, created_at,
          updated_at, chain_id, deposit_address)
         values (?, 'mch_bench', '100', 'USD', '1', 'static', ?, '1000000', 0, '0', '1000000', 0, '0x0', 'pending', '0', 0,
          '2099-01-01T00:00:00.000Z', ?, ?, ${CHAIN_ID}, ?)`,
      );
      const at = '2026-01-01T00:00:00.000Z';
      raw.transaction(() => {
        for (let i = 0; i < OPEN_PAYMENTS; i += 1) {
          const deposit = address();
          deposits.push(deposit);
          statement.run(`00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, at, at, at, deposit);
        }
      })();
      // Fold the WAL into the database file, as the automatic checkpoint would have over time.
      raw.pragma('wal_checkpoint(TRUNCATE)');
      raw.close();
    });

    const logs = Array.from({ length: LOGS }, (_, i) =>
      Math.random() < OURS_SHARE ? deposits[(i * 7919) % deposits.length]! : address(),
    );
    const ledger = ledgerRepository(handle);
    // What the watcher does per range: distinct recipients, one indexed lookup pass, filter.
    const match = async (range: readonly string[]) => {
      const owners = await ledger.paymentsByDepositAddress(CHAIN_ID, [...new Set(range)]);
      return range.filter((to) => owners.has(to)).length;
    };
    const RANGE_LOGS = 5_000;
    await match(logs.slice(0, RANGE_LOGS)); // warm the page cache
    const db = await timed(async () => {
      let matched = 0;
      for (let i = 0; i < logs.length; i += RANGE_LOGS) matched += await match(logs.slice(i, i + RANGE_LOGS));
      return matched;
    });
    const set = new Set(deposits);
    const baseline = await timed(async () => logs.filter((to) => set.has(to)).length);
    if (db.result !== baseline.result)
      throw new Error(`matching disagrees: ${db.result} vs ${baseline.result}`);

    const dbRate = (LOGS / db.ms) * 1000;
    const setRate = (LOGS / baseline.ms) * 1000;
    return [
      `matching: ${fmt(OPEN_PAYMENTS)} open deposit addresses on SQLite (inserted in ${fmt(insert.ms / 1000, 1)} s), ${fmt(LOGS)} logs, ${fmt(db.result)} ours`,
      `  indexed lookup   ${fmt(dbRate)} logs/s   (goal ≥ 200,000/s: ${dbRate >= 200_000 ? 'met' : 'NOT met'})`,
      `  in-memory Set    ${fmt(setRate)} logs/s   (baseline, same run)`,
      `  ratio            ${fmt(dbRate / setRate, 3)} of the in-memory baseline`,
    ];
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  for (const line of await runMatchingBench()) process.stdout.write(`${line}\n`);
}
