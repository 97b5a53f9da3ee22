/**
 * What the tests of a payment paid on a source chain set up alike, on chains from cctpChains.ts: both chains and
 * the test clock at one time, each chain's watcher options, and a payment at the home factory's version 3 deposit
 * address (the same address on every chain). The bridge and settler steps are bridgeWorker.ts's.
 */
import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { predictDepositAddress } from '../../src/adapters/chain/forwarder.ts';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { paymentRow } from '../../src/adapters/db/paymentRepository.ts';
import type { WatchedToken } from '../../src/app/chain/transferRecords.ts';
import type { WatchChainOptions } from '../../src/app/chain/watchChain.ts';
import type { SettleOptions } from '../../src/app/settlement/options.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY } from '../../src/domain/payout.ts';
import { testPayment } from '../fakes/paymentFixture.ts';
import type { CctpChain, CctpChains } from './cctpChains.ts';

/** An address no test holds a key to: the chains are shared by every dialect's run, so recipients are new. */
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;

/**
 * Mines a block on each chain at one time, a second past the latest of their heads, and returns that time for the
 * test clock: transfers of two chains count in block-time order, and real chains' clocks agree to seconds,
 * whatever the tests before moved.
 */
export async function alignChainClocks(chains: readonly CctpChain[]): Promise<Date> {
  const latest = await Promise.all(
    chains.map(async (c) => (await c.anvil.publicClient.getBlock()).timestamp),
  );
  const now = BigInt(Math.max(...latest.map(Number)) + 1);
  for (const chain of chains) {
    await chain.anvil.testClient.setNextBlockTimestamp({ timestamp: now });
    await chain.anvil.testClient.mine({ blocks: 1 });
  }
  return new Date(Number(now) * 1000);
}

/** The home chain's settler (Polygon, 137, as cctpChains' home is named): the default payout policy. */
export const HOME_SETTLE_OPTIONS: SettleOptions = {
  chainId: 137,
  payoutPolicy: DEFAULT_PAYOUT_POLICY,
  relayerLowBalanceWei: 10n ** 18n,
};

/** The chain's USDC, the one token its watcher accepts. */
export const usdcTokens = (chain: CctpChain): WatchedToken[] => [
  { address: chain.cctp.usdc.toLowerCase(), symbol: 'USDC', decimals: 6, accepted: true },
];

/** The home chain's watcher, from its head now (every payment of the test is created after). */
export async function homeWatch(home: CctpChain): Promise<WatchChainOptions> {
  return {
    chainId: home.chainId,
    tokens: usdcTokens(home),
    maxBlockRange: 100,
    startBlock: await home.anvil.publicClient.getBlockNumber(),
    cctpMessageTransmitter: home.cctp.messageTransmitter,
  };
}

/** A source chain's watcher, from its head now, for the deposit addresses of `homeFactory` on `home`. */
export async function sourceWatch(
  source: CctpChain,
  home: CctpChain,
  homeFactory: string,
): Promise<WatchChainOptions> {
  return {
    chainId: source.chainId,
    tokens: usdcTokens(source),
    maxBlockRange: 100,
    startBlock: await source.anvil.publicClient.getBlockNumber(),
    homeChainId: home.chainId,
    homeFactory,
  };
}

export interface CrossChainPaymentSpec {
  readonly handle: DatabaseHandle;
  readonly net: CctpChains;
  readonly home: CctpChain;
  /** The fixture's number (its id's and amount's source, testPayment's `n`). */
  readonly number: number;
  readonly now: Date;
  readonly commissionBps: number;
  /** Default: an hour. */
  readonly ttlMs?: number;
  /** Fields the test states itself (its merchant, its webhook URL …). */
  readonly fields?: Partial<Payment>;
}

/**
 * A payment of 10 USDC (testPayment's), stored, to new recipients, whose deposit address is the home factory's
 * (version 3): the address it has on every chain of `net`.
 */
export async function insertCrossChainPayment(spec: CrossChainPaymentSpec): Promise<Payment> {
  const { factory, implementation } = spec.net.factories[spec.home.name]!;
  const merchant = freshAddress();
  const treasury = freshAddress();
  const id = randomUUID();
  const fixture = testPayment(spec.number);
  const payment: Payment = {
    ...fixture,
    id,
    payoutAddress: merchant,
    quote: { ...fixture.quote, commissionBps: spec.commissionBps },
    createdAt: spec.now,
    expiresAt: new Date(spec.now.getTime() + (spec.ttlMs ?? 3_600_000)),
    ...spec.fields,
    deposit: {
      chainId: spec.home.chainId,
      tokenAddress: spec.home.cctp.usdc,
      factoryAddress: factory,
      treasuryAddress: treasury,
      depositAddress: predictDepositAddress({
        factory,
        implementation,
        params: { merchant, treasury, feeBps: spec.commissionBps, paymentId: id },
        version: 3,
      }),
    },
  };
  await spec.handle.db.insertInto('payments').values(paymentRow(payment)).execute();
  return payment;
}
