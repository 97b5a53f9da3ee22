/**
 * Forwarder version 3 for a deployment without source chains (decision 0038), on an anvil chain standing in for
 * Polygon (137) with a TestUSDC: `paylink contracts deploy` deploys the version 3 factory of the home row's table
 * and `contracts check` reads it back; the service started with it gives version 3 deposit addresses; a
 * deployment made before (version 2, still configured) keeps version 2, and the payments it made then settle
 * exactly under version 2 after the configuration moves to version 3, beside new ones settled under version 3.
 */
import type { Logger } from 'pino';
import { type AbiFunction, type Address, getAbiItem, type Hex, toFunctionSelector } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forwarderFactoryV2Abi, forwarderFactoryV3Abi } from '../../src/adapters/chain/contractAbis.ts';
import { depositPlanner, forwarderImplementationOf } from '../../src/adapters/chain/depositPlanner.ts';
import { predictDepositAddress } from '../../src/adapters/chain/forwarder.ts';
import { predictFactoryV3 } from '../../src/adapters/chain/multiChainFactory.ts';
import { routesHashOf } from '../../src/adapters/chain/routeTable.ts';
import { StartRefusedError } from '../../src/adapters/web/freePorts.ts';
import { createPayment } from '../../src/app/payments/createPayment.ts';
import { settleOnce } from '../../src/app/settlement/settleOnce.ts';
import { loadConfig, NETWORKS } from '../../src/config/index.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { settledBaseUnits } from '../../src/domain/payout.ts';
import { resolveChains } from '../../src/main/chains/resolveChains.ts';
import {
  ANVIL_RELAYER_KEY,
  type ChainHarness,
  PAYMENT_TTL_MS,
  startChainHarness,
} from '../helpers/chainHarness.ts';
import { runCli } from '../helpers/cli.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { freshSettler } from '../helpers/settler.ts';

describe.each(dialects)('forwarder version 3 on a Polygon-only deployment, %s', (dialect) => {
  let h: ChainHarness;
  let logger: Logger;
  let logs: () => string;

  beforeEach(async () => {
    h = await startChainHarness(dialect, { chainId: 137 });
    ({ logger, text: logs } = capturingLogger());
  });
  afterEach(async () => {
    await h?.close();
  });

  /** The operator's environment: Polygon, no PAYLINK_CHAINS, the harness's version 2 factory as deployed before. */
  const env = (factory: Address = h.factory): Record<string, string> => ({
    PAYLINK_NETWORK: 'polygon',
    PAYLINK_RPC_URL: h.anvil.rpcUrl,
    PAYLINK_USDC_ADDRESS: h.usdc,
    PAYLINK_RELAYER_KEY: ANVIL_RELAYER_KEY,
    PAYLINK_TREASURY_ADDRESS: h.addresses.treasury,
    PAYLINK_FACTORY_ADDRESS: factory,
  });
  /** The table of the home row alone: Polygon's USDC as configured and Circle's TokenMessengerV2 (informative). */
  const homeRow = () => ({
    chainId: 137,
    domain: 7,
    usdc: h.usdc,
    tokenMessenger: NETWORKS.polygon.cctp!.tokenMessenger!,
    maxBurnFeeBps: 0,
  });
  /** The home chain as the service resolves it at start from `env`. */
  const started = async (factory?: Address) => {
    const [home] = await resolveChains(loadConfig(env(factory)), '/nonexistent', logger);
    return home!;
  };
  const deployV3 = async () => {
    const deployed = await runCli(['contracts', 'deploy', '--json'], env());
    expect(deployed.stderr).toBe('');
    expect(deployed.code).toBe(0);
    return JSON.parse(deployed.stdout) as { factory: Address; implementation: Address; routesHash: Hex };
  };

  it('contracts deploy gives the version 3 factory of the home row’s table, which contracts check reads back', async () => {
    const before = await runCli(['contracts', 'check'], env());
    expect(before.code).not.toBe(0);
    expect(before.stdout).toContain('polygon (137): the factory is not deployed');
    expect(before.stdout).toContain(`PAYLINK_FACTORY_ADDRESS is ${h.factory}, a version 2 factory`);

    const expected = await predictFactoryV3([homeRow()]);
    const report = await deployV3();
    expect(report.factory).toBe(expected.factory);
    expect(report.implementation).toBe(expected.implementation);
    expect(report.routesHash).toBe(routesHashOf([homeRow()]));
    const read = (functionName: 'VERSION' | 'routesHash' | 'route') =>
      h.anvil.publicClient.readContract({
        address: expected.factory,
        abi: forwarderFactoryV3Abi,
        functionName,
      });
    expect(await read('VERSION')).toBe(3n);
    expect(await read('routesHash')).toBe(routesHashOf([homeRow()]));
    const route = (await read('route')) as { chainId: bigint };
    expect({ ...route, chainId: Number(route.chainId) }).toEqual(homeRow());

    const after = await runCli(['contracts', 'check'], env(expected.factory));
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(
      `polygon (137): ForwarderFactoryV3 ${expected.factory}, routesHash and route as the table says`,
    );
    expect(after.stdout).not.toContain('a version 2 factory');
    expect(after.stdout).toContain(`Set PAYLINK_FACTORY_ADDRESS=${expected.factory}`);
    // With the version 2 factory still configured, the factory is there, and the check says what is configured.
    const stillV2 = await runCli(['contracts', 'check'], env());
    expect(stillV2.code).toBe(0);
    expect(stillV2.stdout).toContain(`PAYLINK_FACTORY_ADDRESS is ${h.factory}, a version 2 factory`);
    // Deploying again changes nothing.
    expect((await deployV3()).factory).toBe(expected.factory);
  });

  it('the service started with each factory gives its version: the table’s is 3, the old one 2, another table’s 3; an unreadable one stops the start', async () => {
    const { factory } = await deployV3();
    expect((await started(factory)).target).toMatchObject({ factoryAddress: factory, forwarderVersion: 3 });
    expect((await started(h.factory)).target).toMatchObject({
      factoryAddress: h.factory,
      forwarderVersion: 2,
    });
    expect(logs()).toContain('new payments use the configured version 2 factory');
    // The harness's version 3 factory names another TokenMessengerV2 in its row: another table, still version 3.
    expect((await started(h.factoryV3)).target.forwarderVersion).toBe(3);
    expect(logs()).toContain('is not the one of this configuration’s route table');
    // No contract there: guessing the formula could give addresses nobody can ever move money out of.
    await expect(started(h.addresses.merchant)).rejects.toThrow(StartRefusedError);
    await expect(started(h.addresses.merchant)).rejects.toThrow(
      `PAYLINK_FACTORY_ADDRESS ${h.addresses.merchant}: its forwarder version could not be read`,
    );
  });

  /** The payment's address as version `version` of `factory` would deploy it. */
  const addressOf = (payment: Payment, factory: Address, version: 2 | 3) =>
    predictDepositAddress({
      factory,
      implementation: forwarderImplementationOf(factory),
      params: {
        merchant: h.addresses.merchant,
        treasury: h.addresses.treasury,
        feeBps: payment.quote.commissionBps,
        paymentId: payment.id,
      },
      version,
    });

  it('a version 2 payment made before the upgrade settles exactly under version 2 after it, beside a new version 3 one', async () => {
    const create = async (factory: Address | undefined, amount: string) => {
      const home = await started(factory);
      return createPayment(
        {
          ...h.stores,
          deposits: { live: depositPlanner(home.target) },
          rates: h.rates,
          clock: h.clock,
          maxAmountBaseUnits: 10n ** 12n,
          minAmountBaseUnits: 1n,
          paymentTtlMs: PAYMENT_TTL_MS,
          webhookAllowPrivate: true,
        },
        h.merchant,
        { amount, currency: 'USDC' },
      );
    };
    const old = await create(undefined, '27');
    expect(old.deposit!.factoryAddress).toBe(h.factory);
    expect(old.deposit!.depositAddress).toBe(addressOf(old, h.factory, 2));
    await h.pay(old.deposit!.depositAddress, old.quote.usdcBaseUnits);

    const { factory: v3 } = await deployV3();
    const fresh = await create(v3, '13.37');
    expect(fresh.deposit!.factoryAddress).toBe(v3);
    expect(fresh.deposit!.depositAddress).toBe(addressOf(fresh, v3, 3));
    expect(fresh.deposit!.depositAddress).not.toBe(addressOf(fresh, v3, 2));
    await h.pay(fresh.deposit!.depositAddress, fresh.quote.usdcBaseUnits);
    await h.finalizeAll();
    await h.poll();

    const merchantBefore = await h.balanceOf(h.addresses.merchant);
    const treasuryBefore = await h.balanceOf(h.addresses.treasury);
    const deps = freshSettler(h, logger);
    const options = {
      chainId: 137,
      payoutPolicy: { dustThresholdBaseUnits: 10_000n, delayedAfterMs: 600_000 },
      relayerLowBalanceWei: 10n ** 18n,
      stuckAfterMs: 60_000,
    };
    // One batch per factory: each pass sends one and applies what the last one sent once final.
    for (let pass = 0; pass < 4; pass += 1) {
      await settleOnce(deps, options);
      await h.finalizeAll();
    }
    for (const payment of [old, fresh]) {
      expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
      const { payment: stored } = await h.status(payment.id);
      expect(settledBaseUnits(stored.payout)).toBe(payment.quote.usdcBaseUnits);
    }
    expect((await h.balanceOf(h.addresses.merchant)) - merchantBefore).toBe(
      old.quote.merchantShareBaseUnits + fresh.quote.merchantShareBaseUnits,
    );
    expect((await h.balanceOf(h.addresses.treasury)) - treasuryBefore).toBe(
      old.quote.commissionBaseUnits + fresh.quote.commissionBaseUnits,
    );
    // Each through its own factory's flush: version 2's flushBatch, version 3's flushBatchDeploying.
    const rows = await h.database.handle.db
      .selectFrom('relayer_transactions')
      .selectAll()
      .orderBy('created_at')
      .execute();
    const calls = await Promise.all(
      rows.map(async (row) => {
        const tx = await h.anvil.publicClient.getTransaction({ hash: row.tx_hash as Hex });
        return { to: tx.to, selector: tx.input.slice(0, 10) };
      }),
    );
    const selector = (abi: typeof forwarderFactoryV2Abi | typeof forwarderFactoryV3Abi, name: string) =>
      toFunctionSelector(getAbiItem({ abi, name } as never) as AbiFunction);
    expect(calls).toEqual(
      expect.arrayContaining([
        { to: h.factory.toLowerCase(), selector: selector(forwarderFactoryV2Abi, 'flushBatch') },
        { to: v3.toLowerCase(), selector: selector(forwarderFactoryV3Abi, 'flushBatchDeploying') },
      ]),
    );
    expect(calls).toHaveLength(2);
    // The new payment's address is version 3's bare 45-byte clone.
    const code = await h.anvil.publicClient.getCode({ address: fresh.deposit!.depositAddress as Address });
    expect(code?.length).toBe(2 + 2 * 45);
  });
});
