import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, createWalletClient, type Hex, http, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../packages/client/src/index.ts';
import { forwarderFactoryV3Abi, testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../src/adapters/chain/eip3009.ts';
import { SANDBOX_ACCOUNTS, sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { startAnvil } from '../helpers/anvil.ts';
import { runCli } from '../helpers/cli.ts';
import { eventually } from '../helpers/net.ts';
import { differences, walkthroughExamples } from '../helpers/readmeExamples.ts';
import { type SandboxWithSecondChain, startSandboxWithSecondChain } from '../helpers/sandboxProcess.ts';

// Real processes: a safety net longer than the polls' own bound, not a speed limit.
describe('the sandbox, as a newcomer runs it (npm start + paylink sandbox pay)', { timeout: 180_000 }, () => {
  let sandbox: SandboxWithSecondChain;
  let env: Record<string, string>;
  let apiKey: string;
  let baseUrl: string;
  let checkoutUrl: string;
  /** Everything the server printed: the banner, then its JSON log lines. */
  const output = () => sandbox.output();

  beforeAll(async () => {
    sandbox = await startSandboxWithSecondChain({
      // What the checkout offers wallets (wallet_addEthereumChain) instead of the sandbox node's own URL.
      PAYLINK_PUBLIC_RPC_URL: 'http://rpc.sandbox.test:8545',
    });
    ({ env, apiKey, apiUrl: baseUrl, checkoutUrl } = sandbox);
    expect(output()).toContain(apiKey);
    // No admin token in this environment: the banner says the admin API is off, and how to turn it on.
    expect(output()).toContain('Admin API      off: set PAYLINK_ADMIN_TOKEN');
  });

  afterAll(async () => {
    await sandbox?.stop();
  });

  it('takes a payment from pending to paid with `paylink sandbox pay`', async () => {
    const created = await fetch(`${baseUrl}/payments/api/create/`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 25, currency: 'EUR' }),
    });
    expect(created.status).toBe(201);
    const { payment_id: id, details } = (await created.json()) as {
      payment_id: string;
      details: Record<string, string>;
    };
    expect(details.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const status = () =>
      fetch(`${baseUrl}/payments/api/status/${id}/`, { headers: { 'x-api-key': apiKey } }).then(
        (r) => r.json() as Promise<Record<string, unknown>>,
      );
    expect((await status()).status).toBe('pending');

    // Part of it first; once the watcher has seen that, `sandbox pay` sends what is still due, not all of it.
    const part = await runCli(['sandbox', 'pay', id, '--amount', '10'], env);
    expect(part.stdout).toMatch(/^Sent 10\.00 USDC to /);
    await eventually(status, (s) => s.status === 'processing');
    const paid = await runCli(['sandbox', 'pay', id], env);
    expect(paid.stderr).toBe('');
    expect(paid.stdout).toMatch(/^Sent 17\.00 USDC to 0x[0-9a-fA-F]{40}: 0x[0-9a-f]{64}/);

    const final = await eventually(status, (s) => s.status === 'paid');
    expect(final).toMatchObject({
      status: 'paid',
      amount_received: '27.00',
      late: false,
      payout_amount: '26.73 USDC',
    });
    expect(final.txid).toBe(paid.stdout.trim().split(': ')[1]);
    const again = await runCli(['sandbox', 'pay', id], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('Nothing is due: 27.00 USDC has arrived already');
    const page = await fetch(`${checkoutUrl}/pay/${id}`).then((r) => r.text());
    expect(page).toContain('data-rpc-url="http://rpc.sandbox.test:8545"');

    // Then settled: the forwarder flushed to the merchant's wallet, by the sandbox's relayer.
    const settled = await eventually(status, (s) => typeof s.payout_txid === 'string');
    expect(settled.payout_txid).toMatch(/^0x[0-9a-f]{64}$/);

    // And the demo merchant's own endpoint received payment.paid, signature verified with standardwebhooks.
    const verifiedPaid = () =>
      output()
        .split('\n')
        .filter((line) => line.includes('signature verified'))
        .map((line) => JSON.parse(line) as { event: string; paymentId: string })
        .some((line) => line.event === 'payment.paid' && line.paymentId === id);
    expect(await eventually(async () => verifiedPaid(), Boolean)).toBe(true);
  });

  it('takes a payment signed by a customer who holds USDC and no POL, relayed by the worker (gasless)', async () => {
    const created = await fetch(`${baseUrl}/payments/api/create/`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 10, currency: 'USDC' }),
    });
    const { payment_id: id } = (await created.json()) as { payment_id: string };
    const offer = (await fetch(`${checkoutUrl}/pay/${id}/gasless.json`).then((r) => r.json())) as {
      domain: { name: string; version: string; chainId: number; verifyingContract: Hex };
      to: Hex;
      value: string;
      valid_before: string;
    };
    expect(offer.value).toBe('10000000');

    // A customer fresh from an exchange: USDC (minted by the sandbox token's owner), no POL at all.
    const rpc = http(env.PAYLINK_RPC_URL);
    const chainClient = createPublicClient({ chain: foundry, transport: rpc });
    const customer = privateKeyToAccount(generatePrivateKey());
    const owner = createWalletClient({
      account: privateKeyToAccount(sandboxPrivateKey(SANDBOX_ACCOUNTS.relayer)),
      chain: foundry,
      transport: rpc,
    });
    const usdc = offer.domain.verifyingContract;
    await chainClient.waitForTransactionReceipt({
      hash: await owner.writeContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [customer.address, 10_000_000n],
      }),
    });
    const message = {
      from: customer.address,
      to: offer.to,
      value: 10_000_000n,
      validAfter: 0n,
      validBefore: BigInt(offer.valid_before),
      nonce: toHex(randomBytes(32)),
    };
    const signature = await customer.signTypedData({
      domain: offer.domain,
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    const posted = await fetch(`${checkoutUrl}/pay/${id}/authorization`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        from: message.from,
        to: message.to,
        value: message.value.toString(),
        valid_after: '0',
        valid_before: message.validBefore.toString(),
        nonce: message.nonce,
        signature,
      }),
    });
    expect(posted.status).toBe(202);

    const status = () =>
      fetch(`${baseUrl}/payments/api/status/${id}/`, { headers: { 'x-api-key': apiKey } }).then(
        (r) => r.json() as Promise<Record<string, unknown>>,
      );
    expect(await eventually(status, (s) => s.status === 'paid')).toMatchObject({
      status: 'paid',
      amount_received: '10.00',
    });
    expect(await chainClient.getBalance({ address: customer.address })).toBe(0n);
  });

  it('refunds in the sandbox: the customer claims on the claim page, `paylink sandbox pay <refund_id>` funds it', async () => {
    const call = (path: string, body?: unknown) =>
      fetch(`${baseUrl}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
    const created = await call('/payments/api/create/', { amount: '3.00', currency: 'USDC' });
    const id = created.body.payment_id!;
    await runCli(['sandbox', 'pay', id], env);
    await eventually(
      () => call(`/payments/api/status/${id}/`),
      (r) => r.body.status === 'paid',
    );
    const refund = await call('/payments/api/refunds/', { payment_id: id, amount: '1.25' });
    expect(refund.status).toBe(201);
    const refundId = refund.body.refund_id!;
    expect(refund.body.claim_url).toBe(`${checkoutUrl}/refunds/${refundId}`);
    // Not fundable before the customer gave an address: there is no deposit address yet.
    expect((await runCli(['sandbox', 'pay', refundId], env)).code).toBe(2);

    const customerWallet = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
    const claimed = await fetch(`${checkoutUrl}/refunds/${refundId}/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: customerWallet }),
    });
    expect(claimed.status).toBe(200);
    const funded = await runCli(['sandbox', 'pay', refundId], env);
    expect(funded.stderr).toBe('');
    expect(funded.stdout).toMatch(/^Sent 1\.25 USDC to 0x[0-9a-fA-F]{40}: 0x[0-9a-f]{64}/);
    const done = await eventually(
      () => call(`/payments/api/refunds/${refundId}/`),
      (r) => r.body.status === 'refunded',
    );
    expect(done.body).toMatchObject({ status: 'refunded', address: customerWallet, amount_sent: '1.25' });
  });

  it('prints dashboard users that sign in: the merchant lands on its home page', async () => {
    const line = /^\s+merchant\s+(\S+)\s+password (\S+)$/m.exec(output());
    expect(line).not.toBeNull();
    const [, email, password] = line!;
    expect(output()).toMatch(/^\s+operator\s+operator@sandbox\.paylink\.test\s+password \S{16}$/m);
    const signedIn = await fetch(`${baseUrl}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl },
      body: new URLSearchParams({ email: email!, password: password! }).toString(),
    });
    expect(signedIn.status).toBe(303);
    // Plain http: the session cookie is not `Secure`, or the browser would drop it.
    const cookie = signedIn.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^paylink_session=[\w-]+;/);
    expect(cookie).not.toMatch(/Secure/i);
    const page = await fetch(`${baseUrl}/dashboard/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    // Redirected to the merchant's home page (decision 0026).
    expect(page.url).toBe(`${baseUrl}/dashboard/home`);
    expect(await page.text()).toContain('Home · Demo Shop');
  });

  it('prints the demo merchant’s webhook secret, with which the SDK verifies a real webhook', async () => {
    const secret = /^\s+Webhook secret\s+(\S+)/m.exec(output())?.[1];
    expect(secret).toMatch(/^whsec_/);
    // A merchant's own receiver, given as the payment's webhook_url, gets what the service really sends.
    const received: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const created = await fetch(`${baseUrl}/payments/api/create/`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: '2.00',
          currency: 'USDC',
          webhook_url: `http://127.0.0.1:${port}/hooks`,
        }),
      });
      expect(created.status).toBe(201);
      const { payment_id: id } = (await created.json()) as { payment_id: string };
      await runCli(['sandbox', 'pay', id], env);
      await eventually(
        async () => received.length,
        (count) => count > 0,
      );
      const first = received[0]!;
      const event = await verifyWebhook(first.body, first.headers as Record<string, string>, secret!);
      expect(event.payment_id).toBe(id);
      await expect(
        verifyWebhook(
          first.body,
          first.headers as Record<string, string>,
          `whsec_${randomBytes(24).toString('base64')}`,
        ),
      ).rejects.toThrow(WebhookVerificationError);
    } finally {
      receiver.close();
    }
  });

  it("answers the README's walk-through as its examples show (keys, their order, and values)", async () => {
    const examples = walkthroughExamples(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'));
    const call = async (path: string, init: RequestInit = {}) =>
      (await fetch(`${baseUrl}${path}`, init)).json() as Promise<Record<string, unknown>>;
    const json = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    // The README's own calls, in its order.
    const converted = await call('/payments/api/convert/?amount=100&currency=EUR', { headers: json });
    const created = await call('/payments/api/create/', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': 'order-1',
      },
      body: '{"amount": 25.00, "currency": "EUR", "order_id": "order-1", "customer_email": "ann@example.com"}',
    });
    const id = created.payment_id as string;
    const unpaid = await call(`/payments/api/status/${id}/`, { headers: json });
    await runCli(['sandbox', 'pay', id], env);
    const payoutLine = () =>
      output()
        .split('\n')
        .filter((line) => line.startsWith('{') && line.includes('signature verified'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.event === 'payment.payout_sent' && line.paymentId === id);
    const logged = await eventually(async () => payoutLine(), Boolean);
    const listed = await call('/payments/api/payments/?status=paid&limit=20', { headers: json });
    const refund = await call('/payments/api/refunds/', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        payment_id: id,
        amount: '5.00',
        address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
      }),
    });
    const unauthorized = await call('/payments/api/convert/?amount=1&currency=USD');

    const substitutions = {
      'http://127.0.0.1:3000': baseUrl,
      'http://127.0.0.1:3001': checkoutUrl,
      '<rid>': String(refund.refund_id),
      '<id>': id,
    };
    const real = [converted, created, unpaid, logged, listed, refund, unauthorized];
    expect(examples).toHaveLength(real.length);
    // payout_status of an unpaid payment is being renamed ("pending" to "not_due"): its form, not its word.
    const problems = examples.flatMap((example, i) =>
      differences(example, real[i], substitutions, ['payout_status']).map(
        (problem) => `example ${i + 1}: ${problem}`,
      ),
    );
    expect(problems).toEqual([]);
  });

  it('refuses to pay an unknown payment', async () => {
    const result = await runCli(['sandbox', 'pay', '6f1c1f2e-8a4b-4c1e-9d3a-2b7e5f0a9c11'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Payment not found');
  });
});

describe('paylink contracts deploy', () => {
  // Version 3 for every deployment (decision 0038): the factory of the chain's table, whose row names its USDC.
  it('deploys the version 3 factory with the relayer key and prints its address', async () => {
    const anvil = await startAnvil();
    try {
      const usdc = await deployTestUsdc(anvil.wallet(0), anvil.publicClient);
      const result = await runCli(['contracts', 'deploy', '--json'], {
        PAYLINK_NETWORK: 'sandbox',
        PAYLINK_RPC_URL: anvil.rpcUrl,
        PAYLINK_USDC_ADDRESS: usdc,
        PAYLINK_RELAYER_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
        PAYLINK_DATABASE_URL: 'sqlite::memory:',
      });
      expect(result.stderr).toBe('');
      const { factory } = JSON.parse(result.stdout);
      expect(factory).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const code = await anvil.publicClient.getCode({ address: factory });
      expect(code && code.length > 2).toBe(true);
      expect(
        await anvil.publicClient.readContract({
          address: factory,
          abi: forwarderFactoryV3Abi,
          functionName: 'VERSION',
        }),
      ).toBe(3n);
      expect(result.stdout).not.toContain('59c6995e');
    } finally {
      await anvil.stop();
    }
  });
});
