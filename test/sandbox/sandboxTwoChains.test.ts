/**
 * The sandbox with its two local chains (decision 0032), started as a newcomer starts it: the second chain (id
 * 31338, CCTP domain 6) on its own port (the default, the port after the first's, is src/config's test), the version 3 factory at one address with code on both, a
 * new payment's deposit address the same on both, the customer funded with USDC and gas on both, the local
 * attestation service answering, and `paylink sandbox pay --chain sandbox-2` paying on the second chain. The
 * second chain's state survives a restart.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createPublicClient, defineChain, getAddress, http, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwarderFactoryV3Abi, testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { toForwarderStruct } from '../../src/adapters/chain/forwarder.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount } from '../../src/sandbox/chain.ts';
import { runCli } from '../helpers/cli.ts';
import { type SandboxWithSecondChain, startSandboxWithSecondChain } from '../helpers/sandboxProcess.ts';

const clientOf = (rpcUrl: string, id: number) =>
  createPublicClient({
    chain: defineChain({
      id,
      name: `anvil ${id}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    }),
    transport: http(rpcUrl),
  }) as PublicClient;

describe('the sandbox with two chains', { timeout: 180_000 }, () => {
  let sandbox: SandboxWithSecondChain;
  let first: PublicClient;
  let second: PublicClient;
  let secondRpcUrl: string;

  beforeAll(async () => {
    sandbox = await startSandboxWithSecondChain();
    secondRpcUrl = sandbox.secondRpcUrl;
    first = clientOf(sandbox.rpcUrl, 31337);
    second = clientOf(secondRpcUrl, 31338);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('has the same factory, with code, and the same deposit address on both chains', async () => {
    expect(await second.getChainId()).toBe(31338);
    const created = await fetch(`${sandbox.apiUrl}/payments/api/create/`, {
      method: 'POST',
      headers: { 'x-api-key': sandbox.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 12.5, currency: 'USD' }),
    });
    expect(created.status).toBe(201);
    const { payment_id: id, details } = (await created.json()) as {
      payment_id: string;
      details: { deposit_address: string };
    };
    const stateDir = dirname(sandbox.env.PAYLINK_DATABASE_URL!.slice('sqlite:'.length));
    const saved = JSON.parse(readFileSync(join(stateDir, 'sandbox-chain-2.json'), 'utf8')) as {
      factory: string;
    };
    const factory = getAddress(saved.factory);
    for (const client of [first, second]) {
      expect(
        await client.readContract({ address: factory, abi: forwarderFactoryV3Abi, functionName: 'VERSION' }),
      ).toBe(3n);
    }
    const routeOf = (client: PublicClient) =>
      client.readContract({ address: factory, abi: forwarderFactoryV3Abi, functionName: 'route' });
    expect(await routeOf(first)).toMatchObject({ chainId: 31337n, domain: 7, maxBurnFeeBps: 0 });
    expect(await routeOf(second)).toMatchObject({ chainId: 31338n, domain: 6, maxBurnFeeBps: 10 });
    const hashOf = (client: PublicClient) =>
      client.readContract({ address: factory, abi: forwarderFactoryV3Abi, functionName: 'routesHash' });
    expect(await hashOf(second)).toBe(await hashOf(first));
    // The deposit address the API gave is the one the factory predicts on each chain: the payment uses it.
    const params = toForwarderStruct({
      merchant: sandboxAccount(SANDBOX_ACCOUNTS.merchant).address,
      treasury: sandboxAccount(SANDBOX_ACCOUNTS.treasury).address,
      feeBps: 100,
      paymentId: id,
    });
    for (const client of [first, second]) {
      expect(
        await client.readContract({
          address: factory,
          abi: forwarderFactoryV3Abi,
          functionName: 'predict',
          args: [params],
        }),
      ).toBe(getAddress(details.deposit_address));
    }

    // The customer holds USDC and gas on the second chain, and `sandbox pay --chain sandbox-2` pays there.
    const customer = sandboxAccount(SANDBOX_ACCOUNTS.customer).address;
    expect(await second.getBalance({ address: customer })).toBeGreaterThan(10n ** 18n);
    const paid = await runCli(['sandbox', 'pay', id, '--chain', 'sandbox-2', '--amount', '2.5'], sandbox.env);
    expect(paid.stderr).toBe('');
    expect(paid.code).toBe(0);
    const hash = /: (0x[0-9a-f]{64})$/m.exec(paid.stdout)?.[1] as `0x${string}`;
    const receipt = await second.waitForTransactionReceipt({ hash });
    const usdc = receipt.to!;
    expect(
      await second.readContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [getAddress(details.deposit_address)],
      }),
    ).toBe(2_500_000n);
    expect(
      await second.readContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [customer],
      }),
    ).toBe(1_000_000_000_000n - 2_500_000n);

    // Gasless payment is offered on the second chain too, signed over its own USDC (decision 0012): the
    // sandbox's gasless relayer account holds gas there as well.
    const page = await (await fetch(`${sandbox.checkoutUrl}/pay/${id}`)).text();
    expect(page).toMatch(/value="31338"[^>]*data-gasless-here="true"/);
    const offer = await fetch(`${sandbox.checkoutUrl}/pay/${id}/gasless.json?chain=31338`);
    expect(offer.status).toBe(200);
    const { domain } = (await offer.json()) as { domain: { chainId: number; verifyingContract: string } };
    expect(domain.chainId).toBe(31338);
    expect(getAddress(domain.verifyingContract)).toBe(getAddress(usdc));
  });

  it('serves the local attestation service where it is told, both named in the banner', async () => {
    const attestations = sandbox.attestationUrl;
    expect(sandbox.output()).toContain(`31338 at ${secondRpcUrl}`);
    expect(sandbox.output()).toContain(`Attestations   ${attestations}`);
    expect(sandbox.output()).toContain('sandbox pay <payment_id> --chain sandbox-2');
    const fees = await fetch(`${attestations}/v2/burn/USDC/fees/6/7`);
    expect(fees.status).toBe(200);
    const unknownDomain = await fetch(`${attestations}/v2/burn/USDC/fees/3/7`);
    expect(unknownDomain.status).toBe(404);
  });
});
