/**
 * The sandbox's chain kept in ./data across restarts: a sandbox made before forwarder version 2 gets a version 2
 * factory for new payments, and keeps its token and older factory (older payments still settle with it).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwarderFactoryV2Abi, subscriptionChargerAbi } from '../../src/adapters/chain/contractAbis.ts';
import { deployFactory, deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import { StartRefusedError } from '../../src/adapters/web/freePorts.ts';
import { startSandboxChain } from '../../src/sandbox/chain.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { capturingLogger } from '../helpers/logCapture.ts';

describe('sandbox chain state', () => {
  let anvil: Anvil;
  let dir: string;
  beforeAll(async () => {
    anvil = await startAnvil();
    dir = mkdtempSync(join(tmpdir(), 'paylink-sandbox-chain-'));
  });
  afterAll(async () => {
    await anvil?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('upgrades a version 1 factory, keeping the token and adding USDC.e; a version 2 one is kept as it is', async () => {
    const usdc = await deployTestUsdc(anvil.wallet(0), anvil.publicClient);
    const { factory: v1 } = await deployFactory(anvil.wallet(0), anvil.publicClient, 1);
    writeFileSync(join(dir, 'sandbox-chain.json'), JSON.stringify({ usdc, factory: v1 }));
    const { logger, text } = capturingLogger();

    const upgraded = await startSandboxChain(anvil.rpcUrl, dir, logger);
    expect(upgraded.usdc).toBe(usdc);
    expect(upgraded.factory).not.toBe(v1);
    expect(
      await anvil.publicClient.readContract({
        address: upgraded.factory,
        abi: forwarderFactoryV2Abi,
        functionName: 'VERSION',
      }),
    ).toBe(2n);
    // A sandbox from before accepted tokens has no bridged USDC (USDC.e) yet: it gets one, saved with the rest.
    expect(await anvil.publicClient.getCode({ address: upgraded.bridgedUsdc })).toMatch(/^0x[0-9a-f]{2,}/);
    // Nor pull renewal's charger (decision 0061): deployed, its domain the charger's own.
    const domain = await anvil.publicClient.readContract({
      address: upgraded.subscriptionCharger,
      abi: subscriptionChargerAbi,
      functionName: 'eip712Domain',
    });
    expect([domain[1], domain[4]]).toEqual(['Paylink SubscriptionCharger', upgraded.subscriptionCharger]);
    // And the chain's first block, by which it is known for its own from now on.
    expect(JSON.parse(readFileSync(join(dir, 'sandbox-chain.json'), 'utf8'))).toEqual({
      usdc,
      factory: upgraded.factory,
      bridgedUsdc: upgraded.bridgedUsdc,
      subscriptionCharger: upgraded.subscriptionCharger,
      genesisHash: (await anvil.publicClient.getBlock({ blockNumber: 0n })).hash,
    });
    expect(text()).toContain('sandbox contracts upgraded');

    const again = await startSandboxChain(anvil.rpcUrl, dir, logger);
    expect(again.factory).toBe(upgraded.factory);
    expect(again.bridgedUsdc).toBe(upgraded.bridgedUsdc);
    expect(again.subscriptionCharger).toBe(upgraded.subscriptionCharger);
    await again.stop();
    await upgraded.stop();
  });

  it("refuses another sandbox's chain before deploying anything into it, and joins its own", async () => {
    const other = mkdtempSync(join(tmpdir(), 'paylink-sandbox-chain-'));
    try {
      const deployer = anvil.wallet(0).account.address;
      const before = await anvil.publicClient.getTransactionCount({ address: deployer });
      const { logger } = capturingLogger();
      await expect(startSandboxChain(anvil.rpcUrl, other, logger)).rejects.toThrow(StartRefusedError);
      await expect(startSandboxChain(anvil.rpcUrl, other, logger)).rejects.toThrow(
        `${anvil.rpcUrl} is another sandbox's chain (this one's data is in ${other}): stop that sandbox, or set PAYLINK_RPC_URL to a free port`,
      );
      // The same with a directory whose chain was another one (its first block is not this chain's).
      const saved = JSON.parse(readFileSync(join(dir, 'sandbox-chain.json'), 'utf8'));
      writeFileSync(
        join(other, 'sandbox-chain.json'),
        JSON.stringify({ ...saved, genesisHash: `0x${'ab'.repeat(32)}` }),
      );
      await expect(startSandboxChain(anvil.rpcUrl, other, logger)).rejects.toThrow("another sandbox's chain");
      expect(await anvil.publicClient.getTransactionCount({ address: deployer })).toBe(before);

      // The directory that made it joins it (a second process of the same sandbox), deploying nothing.
      const joined = await startSandboxChain(anvil.rpcUrl, dir, logger);
      expect(joined.factory).toBe(saved.factory);
      expect(await anvil.publicClient.getTransactionCount({ address: deployer })).toBe(before);
      await joined.stop();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('refuses a port that something other than a node holds, naming PAYLINK_RPC_URL', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const other = mkdtempSync(join(tmpdir(), 'paylink-sandbox-chain-'));
    try {
      const { port } = holder.address() as AddressInfo;
      const rpcUrl = `http://127.0.0.1:${port}`;
      await expect(startSandboxChain(rpcUrl, other, capturingLogger().logger)).rejects.toThrow(
        `${rpcUrl} is taken by a program that is not a sandbox chain: set PAYLINK_RPC_URL to a free port`,
      );
    } finally {
      holder.close();
      rmSync(other, { recursive: true, force: true });
    }
  });
});
