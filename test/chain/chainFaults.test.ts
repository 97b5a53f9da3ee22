import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, createPublicClient, createWalletClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilProcess, spawnAnvil } from '../../src/adapters/chain/anvilProcess.ts';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { pollChainOnce } from '../../src/app/chain/watchChain.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { createPayment } from '../../src/app/payments/createPayment.ts';
import { createStores } from '../../src/main/wiring.ts';
import {
  deploySandboxContracts,
  SANDBOX_ACCOUNTS,
  sandboxAccount,
  sandboxChain,
} from '../../src/sandbox/chain.ts';
import { TestClock } from '../helpers/clock.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { freePort } from '../helpers/net.ts';
import { usdcOnlyRates } from '../helpers/rates.ts';

describe.each(dialects)('chain watcher when the RPC goes down and comes back, %s', (dialect) => {
  let dir: string;
  let port: number;
  let node: AnvilProcess;
  let database: TestDatabase;
  const start = () =>
    spawnAnvil({
      port,
      chainId: 31337,
      args: ['--silent', '--slots-in-an-epoch', '1', '--state', join(dir, 'state.json')],
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paylink-rpc-'));
    port = await freePort();
    node = await start();
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await node.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails the pass without writing anything, then catches up with no gap and no double count', async () => {
    const rpcUrl = `http://127.0.0.1:${port}`;
    const chain = sandboxChain(rpcUrl);
    const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 });
    const customer = createWalletClient({
      account: sandboxAccount(SANDBOX_ACCOUNTS.customer),
      chain,
      transport: http(rpcUrl),
    });
    const { usdc, factory } = await deploySandboxContracts(rpcUrl);
    const pay = async (to: string, amount: bigint) =>
      publicClient.waitForTransactionReceipt({
        hash: await customer.writeContract({
          address: usdc,
          abi: testUsdcAbi,
          functionName: 'transfer',
          args: [to as Address, amount],
        }),
      });

    const clock = new TestClock(new Date(Number((await publicClient.getBlock()).timestamp) * 1000));
    const { logger } = capturingLogger();
    const stores = createStores(database.handle);
    const { merchant } = await createMerchant(
      { merchants: stores.merchants, clock, webhookAllowPrivate: true },
      {
        name: 'Shop',
        wallet: sandboxAccount(1).address,
        webhookUrl: 'http://127.0.0.1:9/',
        commissionPercent: '1',
      },
    );
    const payment = await createPayment(
      {
        ...stores,
        deposits: {
          live: depositPlanner({
            chainId: 31337,
            tokenAddress: usdc,
            factoryAddress: factory,
            treasuryAddress: sandboxAccount(9).address,
          }),
        },
        rates: usdcOnlyRates(clock, logger),
        clock,
        maxAmountBaseUnits: 10n ** 12n,
        // No minimum to speak of: amounts here are whatever the test needs (the minimum: test/payments/merchantApi.test.ts).
        minAmountBaseUnits: 1n,
        paymentTtlMs: 3_600_000,
        webhookAllowPrivate: true,
      },
      merchant,
      { amount: '10', currency: 'USDC' },
    );
    const deposit = payment.deposit!.depositAddress;
    const watch = {
      chainId: 31337,
      tokens: [{ address: usdc.toLowerCase(), symbol: 'USDC', decimals: 6, accepted: true }],
      maxBlockRange: 5,
      startBlock: 0n,
    };
    const poll = () =>
      pollChainOnce(
        {
          ledger: stores.ledger,
          chain: chainReader(createRpcClient([rpcUrl], 2_000), { kind: 'finalized' }),
          clock,
          logger,
        },
        watch,
      );

    await pay(deposit, 4_000_000n);
    await poll();
    const before = await stores.ledger.cursor(31337);

    await node.stop(); // anvil writes its state on SIGTERM
    await expect(poll()).rejects.toThrow();
    expect(await stores.ledger.cursor(31337)).toStrictEqual(before);

    node = await start();
    await pay(deposit, 6_000_000n);
    await publicClient.request({ method: 'anvil_mine', params: ['0x14'] } as never); // 20 blocks: several ranges
    let result = await poll();
    while (result.lagBlocks > 0n) result = await poll();
    await publicClient.request({ method: 'anvil_mine', params: ['0x3'] } as never);
    await poll();

    const transfers = await stores.ledger.listTransfers(payment.id);
    expect(transfers.map((t) => t.amountBaseUnits).sort()).toEqual([4_000_000n, 6_000_000n]);
    expect(transfers.every((t) => t.final && !t.orphaned)).toBe(true);
    const stored = await stores.payments.findById(payment.id);
    expect(stored).toMatchObject({ status: 'paid', amountReceivedBaseUnits: 10_000_000n });
  });
});
