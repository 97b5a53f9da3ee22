/**
 * The sandbox with one chain (`PAYLINK_CHAINS=` empty: no second chain), as a Polygon-only deployment runs
 * (decision 0038): it deploys the version 3 factory of its chain's table alone and new payments use it — the
 * whole path from the API's deposit address through `paylink sandbox pay`, the watcher and the settler's
 * `flushBatchDeploying` to the merchant's wallet, to the base unit.
 */
import { join } from 'node:path';
import {
  type AbiFunction,
  type Address,
  createPublicClient,
  getAbiItem,
  type Hex,
  http,
  toFunctionSelector,
  zeroAddress,
} from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwarderFactoryV3Abi, testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { predictDepositAddress } from '../../src/adapters/chain/forwarder.ts';
import { predictFactoryV3 } from '../../src/adapters/chain/multiChainFactory.ts';
import { parseUsdc } from '../../src/domain/money.ts';
import { readSandboxContracts, SANDBOX_ACCOUNTS, sandboxAccount } from '../../src/sandbox/chain.ts';
import { runCli } from '../helpers/cli.ts';
import { eventually } from '../helpers/net.ts';
import { type SandboxProcess, startSandbox } from '../helpers/sandboxProcess.ts';

describe('the sandbox on one chain settles on forwarder version 3', { timeout: 180_000 }, () => {
  let sandbox: SandboxProcess;

  beforeAll(async () => {
    sandbox = await startSandbox({ PAYLINK_CHAINS: '' });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('gives a version 3 address of its own table, and pays it out through flushBatchDeploying exactly', async () => {
    const client = createPublicClient({ chain: foundry, transport: http(sandbox.rpcUrl) });
    const stateDir = join(sandbox.env.PAYLINK_DATABASE_URL!.slice('sqlite:'.length), '..');
    const { usdc } = readSandboxContracts(stateDir)!;
    // The table of the sandbox chain alone: it never burns, and has no CCTP of its own (messenger zero).
    const { factory, implementation } = await predictFactoryV3([
      { chainId: 31337, domain: 7, usdc, tokenMessenger: zeroAddress, maxBurnFeeBps: 0 },
    ]);
    expect(
      await client.readContract({ address: factory, abi: forwarderFactoryV3Abi, functionName: 'VERSION' }),
    ).toBe(3n);

    const created = await fetch(`${sandbox.apiUrl}/payments/api/create/`, {
      method: 'POST',
      headers: { 'x-api-key': sandbox.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 27, currency: 'USDC' }),
    });
    expect(created.status).toBe(201);
    const { payment_id: id, details } = (await created.json()) as {
      payment_id: string;
      details: { deposit_address: Address; chain_id: number; networks?: unknown };
    };
    // One chain: no list of networks in the quote (it appears with a second one).
    expect(details.chain_id).toBe(31337);
    expect(details.networks).toBeUndefined();
    const merchant = sandboxAccount(SANDBOX_ACCOUNTS.merchant).address;
    const treasury = sandboxAccount(SANDBOX_ACCOUNTS.treasury).address;
    // The demo merchant's commission is 1 %: the address commits to it, to both payees and to the payment.
    expect(details.deposit_address).toBe(
      predictDepositAddress({
        factory,
        implementation,
        params: { merchant, treasury, feeBps: 100, paymentId: id },
        version: 3,
      }),
    );

    const balance = (account: Address) =>
      client.readContract({ address: usdc, abi: testUsdcAbi, functionName: 'balanceOf', args: [account] });
    const before = { merchant: await balance(merchant), treasury: await balance(treasury) };
    const paid = await runCli(['sandbox', 'pay', id], sandbox.env);
    expect(paid.stderr).toBe('');
    const status = () =>
      fetch(`${sandbox.apiUrl}/payments/api/status/${id}/`, {
        headers: { 'x-api-key': sandbox.apiKey },
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const settled = await eventually(status, (s) => s.payout_status === 'sent');
    expect(settled).toMatchObject({ status: 'paid', amount_received: '27.00', payout_amount: '26.73 USDC' });

    const payout = await client.getTransaction({ hash: settled.payout_txid as Hex });
    expect(payout.to).toBe(factory.toLowerCase());
    expect(payout.input.slice(0, 10)).toBe(
      toFunctionSelector(
        getAbiItem({ abi: forwarderFactoryV3Abi, name: 'flushBatchDeploying' }) as AbiFunction,
      ),
    );
    expect(await balance(details.deposit_address)).toBe(0n);
    expect((await balance(merchant)) - before.merchant).toBe(parseUsdc('26.73'));
    expect((await balance(treasury)) - before.treasury).toBe(parseUsdc('0.27'));
    // The bare 45-byte clone of version 3.
    expect((await client.getCode({ address: details.deposit_address }))?.length).toBe(2 + 2 * 45);
  });
});
