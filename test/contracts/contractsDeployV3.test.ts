/**
 * `paylink contracts deploy` and `paylink contracts check` for a mode with a source chain (decision 0032), on two
 * anvil chains standing in for Polygon (137) and Base (8453), each with a TestUSDC and the project's CCTP v2 test
 * contracts: the version 3 factory of the route table at one address on both, checked against the table; a
 * configured factory of another table refused at start; a row whose messenger is wrong refused before deploying.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployTestCctp, type TestCctpDeployment } from '../../src/adapters/cctp/testCctp.ts';
import { forwarderFactoryV3Abi } from '../../src/adapters/chain/contractAbis.ts';
import { deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import { predictFactoryV3 } from '../../src/adapters/chain/multiChainFactory.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { resolveChains } from '../../src/main/chains/resolveChains.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { runCli } from '../helpers/cli.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

const RELAYER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'; // anvil account 1

describe('contracts deploy and check with a source chain', () => {
  let polygon: Anvil;
  let base: Anvil;
  let polygonCctp: TestCctpDeployment;
  let baseCctp: TestCctpDeployment;
  let env: Record<string, string>;
  let dir: string;

  const cctpOn = async (anvil: Anvil, domain: number) => {
    const usdc = await deployTestUsdc(anvil.wallet(0), anvil.publicClient);
    return deployTestCctp(anvil.wallet(0), anvil.publicClient, {
      domain,
      usdc,
      attesters: [anvil.addresses[3]!],
      signatureThreshold: 1,
      feeRecipient: anvil.addresses[4]!,
    });
  };

  beforeAll(async () => {
    [polygon, base] = await Promise.all([startAnvil({ chainId: 137 }), startAnvil({ chainId: 8453 })]);
    [polygonCctp, baseCctp] = await Promise.all([cctpOn(polygon, 7), cctpOn(base, 6)]);
    dir = mkdtempSync(join(tmpdir(), 'paylink-contracts-v3-'));
    env = {
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_RPC_URL: polygon.rpcUrl,
      PAYLINK_USDC_ADDRESS: polygonCctp.usdc,
      PAYLINK_TOKEN_MESSENGER: polygonCctp.tokenMessenger,
      PAYLINK_MESSAGE_TRANSMITTER: polygonCctp.messageTransmitter,
      PAYLINK_RELAYER_KEY: RELAYER_KEY,
      PAYLINK_TREASURY_ADDRESS: polygon.addresses[9]!,
      PAYLINK_CHAINS: 'base',
      PAYLINK_BASE_RPC_URL: base.rpcUrl,
      PAYLINK_BASE_USDC_ADDRESS: baseCctp.usdc,
      PAYLINK_BASE_TOKEN_MESSENGER: baseCctp.tokenMessenger,
      PAYLINK_BASE_MESSAGE_TRANSMITTER: baseCctp.messageTransmitter,
      PAYLINK_BASE_MAX_FEE_BPS: '5',
    };
  });
  afterAll(async () => {
    await Promise.all([polygon?.stop(), base?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const table = () => [
    {
      chainId: 137,
      domain: 7,
      usdc: polygonCctp.usdc,
      tokenMessenger: polygonCctp.tokenMessenger,
      maxBurnFeeBps: 0,
    },
    {
      chainId: 8453,
      domain: 6,
      usdc: baseCctp.usdc,
      tokenMessenger: baseCctp.tokenMessenger,
      maxBurnFeeBps: 5,
    },
  ];

  it('refuses a row whose TokenMessengerV2 is not one, deploying nothing on any chain', async () => {
    const wrong = await runCli(['contracts', 'deploy'], {
      ...env,
      PAYLINK_BASE_TOKEN_MESSENGER: baseCctp.usdc,
    });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toContain(`base (8453): ${baseCctp.usdc} does not answer as a TokenMessengerV2`);
    const { factory } = await predictFactoryV3([
      table()[0]!,
      { ...table()[1]!, tokenMessenger: baseCctp.usdc },
    ]);
    expect(await base.publicClient.getCode({ address: factory })).toBeUndefined();
  });

  it('checks before deploying: the factory is on no chain yet, and the command fails', async () => {
    const check = await runCli(['contracts', 'check'], env);
    expect(check.code).not.toBe(0);
    expect(check.stdout).toContain('polygon (137): the factory is not deployed');
    expect(check.stdout).toContain('base (8453): the factory is not deployed');
  });

  it("deploys the table's factory at one address on both chains, each with its own row", async () => {
    const { factory } = await predictFactoryV3(table());
    const deployed = await runCli(['contracts', 'deploy', '--json'], env);
    expect(deployed.stderr).toBe('');
    expect(deployed.code).toBe(0);
    const report = JSON.parse(deployed.stdout) as {
      factory: Address;
      chains: { chainId: number; problems: string[] }[];
    };
    expect(report.factory).toBe(factory);
    expect(report.chains).toEqual([
      { network: 'polygon', chainId: 137, factory, problems: [] },
      { network: 'base', chainId: 8453, factory, problems: [] },
    ]);
    for (const [anvil, row] of [
      [polygon, table()[0]!],
      [base, table()[1]!],
    ] as const) {
      const route = await anvil.publicClient.readContract({
        address: factory,
        abi: forwarderFactoryV3Abi,
        functionName: 'route',
      });
      expect({ ...route, chainId: Number(route.chainId) }).toEqual(row);
    }
    const check = await runCli(['contracts', 'check'], env);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(
      `base (8453): ForwarderFactoryV3 ${factory}, routesHash and route as the table says`,
    );
    expect(check.stdout).toContain(`Set PAYLINK_FACTORY_ADDRESS=${factory}`);
    // And pull renewal's charger on the home chain (decision 0061), named to be configured.
    const charger = (JSON.parse(deployed.stdout) as { subscriptionCharger: { address: Address } })
      .subscriptionCharger.address;
    expect(JSON.parse(deployed.stdout).subscriptionCharger).toEqual({ address: charger, deployed: true });
    expect(await polygon.publicClient.getCode({ address: charger })).toMatch(/^0x[0-9a-f]{2,}/);
    // Deploying again is a no-op that checks the same, the configured charger kept.
    const again = await runCli(['contracts', 'deploy'], { ...env, PAYLINK_SUBSCRIPTION_CHARGER: charger });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `SubscriptionCharger already there: set PAYLINK_SUBSCRIPTION_CHARGER=${charger} for pull renewal`,
    );
  });

  it('refuses at start a configured factory that is not the table’s, saying which table it expected', async () => {
    const { factory } = await predictFactoryV3(table());
    const other = await predictFactoryV3([table()[0]!, { ...table()[1]!, maxBurnFeeBps: 6 }]);
    const { logger } = capturingLogger();
    const start = (factoryAddress: string) =>
      resolveChains(loadConfig({ ...env, PAYLINK_FACTORY_ADDRESS: factoryAddress }), dir, logger);
    await expect(start(other.factory)).rejects.toThrow(ConfigError);
    await expect(start(other.factory)).rejects.toThrow(
      `PAYLINK_FACTORY_ADDRESS is ${other.factory}, but the live mode's chains need the version 3 factory of their route table, ${factory}`,
    );
    await expect(start(other.factory)).rejects.toThrow(`chain 8453 (domain 6, USDC ${baseCctp.usdc}`);
    const chains = await start(factory);
    expect(chains.map((chain) => chain.target.factoryAddress)).toEqual([factory]);
  });
});
