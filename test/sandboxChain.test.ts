/**
 * The sandbox's chain kept in ./data across restarts: a sandbox made before forwarder version 2 gets a version 2
 * factory for new payments, and keeps its token and older factory (older payments still settle with it).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwarderFactoryV2Abi } from '../src/adapters/chain/contractAbis.ts';
import { deployFactory, deployTestUsdc } from '../src/adapters/chain/deployContracts.ts';
import { startSandboxChain } from '../src/main/sandboxChain.ts';
import { type Anvil, startAnvil } from './helpers/anvil.ts';
import { capturingLogger } from './helpers/logCapture.ts';

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
    expect(JSON.parse(readFileSync(join(dir, 'sandbox-chain.json'), 'utf8'))).toEqual({
      usdc,
      factory: upgraded.factory,
      bridgedUsdc: upgraded.bridgedUsdc,
    });
    expect(text()).toContain('sandbox contracts upgraded');

    const again = await startSandboxChain(anvil.rpcUrl, dir, logger);
    expect(again.factory).toBe(upgraded.factory);
    expect(again.bridgedUsdc).toBe(upgraded.bridgedUsdc);
    await again.stop();
    await upgraded.stop();
  });
});
