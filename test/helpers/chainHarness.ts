import type { Address } from 'viem';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { deployFactory, deployTestUsdc, TEST_TOKENS } from '../../src/adapters/chain/deployContracts.ts';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { deployFactoryV3 } from '../../src/adapters/chain/multiChainFactory.ts';
import type { DialectName } from '../../src/adapters/db/database.ts';
import { ledgerRepository } from '../../src/adapters/db/ledgerRepository.ts';
import { marketRates } from '../../src/adapters/rates/marketRates.ts';
import { staticSource } from '../../src/adapters/rates/static.ts';
import type { ChainReader } from '../../src/app/chain/ports.ts';
import { type PollResult, pollChainOnce, type WatchChainOptions } from '../../src/app/chain/watchChain.ts';
import type { PaymentRequestSettings } from '../../src/app/email/paymentRequests.ts';
import { type ReceiptSettings, receiptReactions } from '../../src/app/email/receipts.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { createPayment } from '../../src/app/payments/createPayment.ts';
import { currentState } from '../../src/app/payments/getPaymentStatus.ts';
import type { DepositPlanner, RateProvider } from '../../src/app/payments/ports.ts';
import type { ChainSettings } from '../../src/config/index.ts';
import type { Merchant } from '../../src/domain/merchant.ts';
import type { Payment } from '../../src/domain/payment.ts';
import type { WorkerChain } from '../../src/main/chains/workerChains.ts';
import { createStores } from '../../src/main/wiring.ts';
import { SANDBOX_ACCOUNTS } from '../../src/sandbox/chain.ts';
import { type Anvil, type AnvilOptions, startAnvil } from './anvil.ts';
import { TestClock } from './clock.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { capturingLogger } from './logCapture.ts';

/** Anvil accounts: 0 deploys and relays, 1 is the merchant, 2 the customer, 9 the treasury. */
export const ROLES = SANDBOX_ACCOUNTS;
/** Anvil's well-known key of account 0 (the relayer), for tests that sign as the relayer does. */
export const ANVIL_RELAYER_KEY =
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
export const USDC = (text: string) => BigInt(Math.round(Number(text) * 1e6)); // test literals only
export const PAYMENT_TTL_MS = 60 * 60_000;

export interface ChainHarness {
  readonly anvil: Anvil;
  readonly database: TestDatabase;
  readonly stores: ReturnType<typeof createStores>;
  readonly clock: TestClock;
  readonly logs: () => string;
  readonly usdc: Address;
  /** A second USDC-like token (the sandbox's stand-in for USDC.e): accepted or only noticed, as asked. */
  readonly bridgedUsdc: Address;
  /** The current factory (forwarder version 2), where new payments go. */
  readonly factory: Address;
  /** A version 1 factory on the same chain, for payments created before version 2. */
  readonly factoryV1: Address;
  /** Version 3 (the bare clone, decision 0031), this chain as its table's home chain. */
  readonly factoryV3: Address;
  readonly merchant: Merchant;
  /** The deposit planner of the current factory (version 2), as the API plans with it. */
  readonly deposits: DepositPlanner;
  /** Market rates from a static table (EUR = 1.08 USDC) on the harness's clock. */
  readonly rates: RateProvider;
  readonly addresses: { merchant: Address; customer: Address; treasury: Address; relayer: Address };
  /** A payment created through the real use case (on the version 1 or 3 factory if asked). */
  createPayment(
    amount: string,
    currency?: string,
    options?: {
      forwarderVersion?: 1 | 2 | 3;
      customerEmail?: string;
      customerLanguage?: string;
      orderId?: string;
      sendEmail?: boolean;
      /** What is sold (decision 0051), as the API takes them: line items as parsed JSON. */
      title?: string;
      description?: string;
      lineItems?: unknown;
    },
  ): Promise<Payment>;
  /** The token's owner controls, as Circle's would be used: blacklist, unBlacklist, pause, unpause. */
  control(action: 'blacklist' | 'unBlacklist', account: Address): Promise<void>;
  control(action: 'pause' | 'unpause'): Promise<void>;
  /** A plain USDC transfer from the customer (or `fromIndex`), mined in its own block. */
  pay(
    to: string,
    baseUnits: bigint,
    options?: { token?: Address; fromIndex?: number },
  ): Promise<`0x${string}`>;
  /** Mines blocks so that everything so far becomes final under the `finalized` tag. */
  finalizeAll(): Promise<void>;
  /**
   * One watcher pass; `options` overrides the harness's (which starts a new cursor at block 0), and `chain` its
   * reader (the `finalized` tag over JSON-RPC).
   */
  poll(options?: Partial<WatchChainOptions>, chain?: ChainReader): Promise<PollResult>;
  /** The payment's stored row and its derived status now. */
  status(paymentId: string): Promise<{ payment: Payment; state: Awaited<ReturnType<typeof currentState>> }>;
  balanceOf(address: string, token?: Address): Promise<bigint>;
  close(): Promise<void>;
}

/** The harness's chain as `runWorker` takes it: its USDC, factory and treasury, read over its RPC. */
export function workerChainOf(
  h: ChainHarness,
  settings: ChainSettings,
  more: Partial<WorkerChain> = {},
): WorkerChain {
  return {
    settings,
    target: {
      chainId: h.anvil.chain.id,
      tokenAddress: h.usdc,
      acceptedTokens: [{ symbol: 'USDC', address: h.usdc, decimals: 6 }],
      noticedTokens: [],
      factoryAddress: h.factory,
      treasuryAddress: h.addresses.treasury,
    },
    rpcUrls: [h.anvil.rpcUrl],
    ...more,
  };
}

/**
 * A real chain (anvil, `finalized` trailing latest by 2 blocks) with the contracts deployed and the customer
 * funded, a real database of the dialect, and the real use cases — the watcher reads the chain over JSON-RPC.
 * Clock and chain time move together: the test clock starts at the chain's time.
 */
export async function startChainHarness(
  dialect: DialectName,
  anvilOptions: AnvilOptions = {},
  harnessOptions: {
    readonly bridgedUsdc?: 'accepted' | 'noticed';
    /** Receipts queued by the watcher, as a worker with e-mail configured does. */
    readonly receipts?: ReceiptSettings;
    /** Payment requests (`sendEmail` on createPayment), as the API has them with e-mail configured. */
    readonly paymentRequests?: PaymentRequestSettings;
  } = {},
): Promise<ChainHarness> {
  // The node and the database do not depend on each other: both are started at once (and on a failure, the
  // one that did start is removed again).
  const [startedAnvil, createdDatabase] = await Promise.allSettled([
    startAnvil({ ...anvilOptions, args: ['--slots-in-an-epoch', '1', ...(anvilOptions.args ?? [])] }),
    createTestDatabase(dialect),
  ]);
  if (startedAnvil.status === 'rejected' || createdDatabase.status === 'rejected') {
    if (startedAnvil.status === 'fulfilled') await startedAnvil.value.stop();
    if (createdDatabase.status === 'fulfilled') await createdDatabase.value.drop();
    throw startedAnvil.status === 'rejected'
      ? startedAnvil.reason
      : (createdDatabase as PromiseRejectedResult).reason;
  }
  const anvil = startedAnvil.value;
  const database = createdDatabase.value;
  const relayerWallet = anvil.wallet(ROLES.relayer);
  const usdc = await deployTestUsdc(relayerWallet, anvil.publicClient);
  const bridgedUsdc = await deployTestUsdc(relayerWallet, anvil.publicClient, TEST_TOKENS['USDC.e']);
  const { factory } = await deployFactory(relayerWallet, anvil.publicClient, 2);
  const { factory: factoryV1 } = await deployFactory(relayerWallet, anvil.publicClient, 1);
  // Version 3 with this chain as the home chain of its table: USDC is flushed here, never burnt.
  const { factory: factoryV3 } = await deployFactoryV3(relayerWallet, anvil.publicClient, [
    { chainId: anvil.chain.id, domain: 7, usdc, tokenMessenger: usdc, maxBurnFeeBps: 0 },
  ]);
  const addresses = {
    relayer: anvil.addresses[ROLES.relayer]!,
    merchant: anvil.addresses[ROLES.merchant]!,
    customer: anvil.addresses[ROLES.customer]!,
    treasury: anvil.addresses[ROLES.treasury]!,
  };
  for (const token of [usdc, bridgedUsdc]) {
    const mint = await relayerWallet.writeContract({
      address: token,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [addresses.customer, 1_000_000_000_000n],
    });
    await anvil.publicClient.waitForTransactionReceipt({ hash: mint });
  }

  const latest = await anvil.publicClient.getBlock();
  const clock = new TestClock(new Date(Number(latest.timestamp) * 1000));
  const { logger, text } = capturingLogger();
  const stores = createStores(database.handle);
  // The watcher's ledger, as the worker's: with receipts, its transactions queue a paid payment's receipt.
  const { receipts } = harnessOptions;
  const watcherLedger = receipts
    ? ledgerRepository(database.handle, receiptReactions(receipts))
    : stores.ledger;
  const chainId = anvil.chain.id;
  const plannerOf = (factoryAddress: Address, forwarderVersion: 1 | 2 | 3) =>
    depositPlanner({
      chainId,
      tokenAddress: usdc,
      factoryAddress,
      treasuryAddress: addresses.treasury,
      forwarderVersion,
    });
  const planners = { 1: plannerOf(factoryV1, 1), 2: plannerOf(factory, 2), 3: plannerOf(factoryV3, 3) };
  const rates = marketRates({
    sources: [staticSource({ EUR: '1.08' }, () => clock.now())],
    clock,
    cacheTtlMs: 60_000,
    maxAgeMs: 60_000,
    maxSpreadBps: 100,
    timeoutMs: 1_000,
    logger,
  });
  const { merchant } = await createMerchant(
    { merchants: stores.merchants, clock, webhookAllowPrivate: true },
    {
      name: 'Chain Shop',
      wallet: addresses.merchant,
      webhookUrl: 'http://127.0.0.1:9/hooks',
      commissionPercent: '2.5',
    },
  );
  const reader = chainReader(createRpcClient([anvil.rpcUrl]), { kind: 'finalized' });
  const watch: WatchChainOptions = {
    chainId,
    tokens: [
      { address: usdc.toLowerCase(), symbol: 'USDC', decimals: 6, accepted: true },
      {
        address: bridgedUsdc.toLowerCase(),
        symbol: 'USDC.e',
        decimals: 6,
        accepted: harnessOptions.bridgedUsdc === 'accepted',
      },
    ],
    maxBlockRange: 50,
    startBlock: 0n,
  };

  return {
    anvil,
    database,
    stores,
    clock,
    logs: text,
    usdc,
    bridgedUsdc,
    factory,
    factoryV1,
    factoryV3,
    merchant,
    deposits: planners[2],
    rates,
    addresses,
    createPayment: (amount, currency = 'USDC', options = {}) =>
      createPayment(
        {
          ...stores,
          deposits: { live: planners[options.forwarderVersion ?? 2] },
          rates,
          clock,
          maxAmountBaseUnits: 10n ** 12n,
          // No minimum to speak of: amounts here are whatever the test needs (the minimum: test/payments/merchantApi.test.ts).
          minAmountBaseUnits: 1n,
          paymentTtlMs: PAYMENT_TTL_MS,
          webhookAllowPrivate: true,
          paymentRequests: harnessOptions.paymentRequests,
        },
        merchant,
        {
          amount,
          currency,
          customerEmail: options.customerEmail,
          customerLanguage: options.customerLanguage,
          orderId: options.orderId,
          sendEmail: options.sendEmail,
          title: options.title,
          description: options.description,
          lineItems: options.lineItems,
        },
      ),
    async pay(to, baseUnits, options = {}) {
      const wallet = anvil.wallet(options.fromIndex ?? ROLES.customer);
      const hash = await wallet.writeContract({
        address: options.token ?? usdc,
        abi: testUsdcAbi,
        functionName: 'transfer',
        args: [to as Address, baseUnits],
      });
      await anvil.publicClient.waitForTransactionReceipt({ hash });
      return hash;
    },
    async control(action: 'blacklist' | 'unBlacklist' | 'pause' | 'unpause', account?: Address) {
      const hash = await relayerWallet.writeContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: action,
        args: account === undefined ? [] : [account],
      } as Parameters<typeof relayerWallet.writeContract>[0]);
      const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`${action} failed`);
    },
    async finalizeAll() {
      await anvil.testClient.mine({ blocks: 3 });
    },
    poll: (options = {}, chain = reader) =>
      pollChainOnce({ ledger: watcherLedger, chain, clock, logger }, { ...watch, ...options }),
    async status(paymentId) {
      const payment = await stores.payments.findById(paymentId);
      if (!payment) throw new Error(`no payment ${paymentId}`);
      return { payment, state: await currentState({ ledger: stores.ledger, clock }, payment) };
    },
    balanceOf: (address, token = usdc) =>
      anvil.publicClient.readContract({
        address: token,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [address as Address],
      }),
    async close() {
      await anvil.stop();
      await database.drop();
    },
  };
}
