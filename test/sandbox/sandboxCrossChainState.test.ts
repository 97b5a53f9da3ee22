/**
 * The sandbox's second chain kept in the state directory across restarts (decision 0032): started again with the
 * same directory, both chains come back from their anvil state files with the same version 3 factory, nothing is
 * deployed again, and the attestation service answers again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { holdsCode } from '../../src/adapters/chain/contractCode.ts';
import { loadConfig } from '../../src/config/index.ts';
import { startSandboxChain } from '../../src/sandbox/chain.ts';
import { startSandboxCrossChain } from '../../src/sandbox/crossChain.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { freePort } from '../helpers/net.ts';

describe('the sandbox second chain across restarts', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paylink-sandbox-2-state-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps its chain, its contracts and the factory address, deploying nothing the second time', async () => {
    const config = loadConfig({
      PAYLINK_RPC_URL: `http://127.0.0.1:${await freePort()}`,
      PAYLINK_SANDBOX_2_RPC_URL: `http://127.0.0.1:${await freePort()}`,
      PAYLINK_CCTP_ATTESTATION_URL: `http://127.0.0.1:${await freePort()}`,
    });
    const second = config.chains.find((chain) => chain.network === 'sandbox-2')!;
    const start = async () => {
      const { logger, text } = capturingLogger();
      const home = await startSandboxChain(config.liveHomeChain.rpcUrls[0]!, dir, logger);
      const cross = await startSandboxCrossChain(
        home,
        config.liveHomeChain,
        second,
        config.cctp!.attestationUrl,
        dir,
        logger,
      );
      const fees = await fetch(`${config.cctp!.attestationUrl}/v2/burn/USDC/fees/6/7`);
      const client = createPublicClient({ transport: http(second.rpcUrls[0]) });
      const factoryOnSecond = await holdsCode(client, cross.factory);
      await cross.stop();
      await home.stop();
      return {
        factory: cross.factory,
        usdc: cross.second.usdc,
        log: text(),
        fees: fees.status,
        factoryOnSecond,
      };
    };
    const first = await start();
    expect(first.log).toContain('sandbox cross-chain contracts deployed');
    expect(first.fees).toBe(200);
    expect(first.factoryOnSecond).toBe(true);
    const again = await start();
    expect(again.factory).toBe(first.factory);
    expect(again.usdc).toBe(first.usdc);
    expect(again.factoryOnSecond).toBe(true);
    expect(again.fees).toBe(200);
    expect(again.log).not.toContain('deployed');
    expect(again.log).not.toContain('state lost');
  });
});
