/**
 * The x402 facilitator end to end (decision 0059), on one anvil chain and each database: a real x402 client from
 * npm (`@x402/fetch` with `@x402/evm`'s exact scheme and a viem account) pays a resource server built with
 * `@x402/express`, which uses Paylink's API over real HTTP as its facilitator, authenticated by a restricted key
 * holding only `x402:settle`. The gasless relayer submits the transfer to the merchant's x402 address; the
 * merchant sees the call as a paid payment with its `payment.paid` event; a replayed payment header is settled
 * once; and /verify refuses, without gas, what the relayer must not submit.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { HTTPFacilitatorClient } from '@x402/core/http';
import { x402ResourceServer } from '@x402/core/server';
import { registerExactEvmScheme as registerClientScheme } from '@x402/evm/exact/client';
import { registerExactEvmScheme as registerServerScheme } from '@x402/evm/exact/server';
import { paymentMiddleware } from '@x402/express';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import express from 'express';
import type { FastifyInstance } from 'fastify';
import { toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaylinkClient, type X402PaymentPaidEvent } from '../../packages/client/src/index.ts';
import { createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { authorizationChain, readAuthorizationDomain } from '../../src/adapters/chain/eip3009.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { scryptPasswords } from '../../src/adapters/crypto/scryptPasswords.ts';
import { gaslessRepository } from '../../src/adapters/db/gaslessRepository.ts';
import { x402Repository } from '../../src/adapters/db/x402Repository.ts';
import type { GaslessAuthorization } from '../../src/app/gasless/ports.ts';
import { type RelayAuthorizationsDeps, relayOnce } from '../../src/app/gasless/relayAuthorizations.ts';
import { createRestrictedKey } from '../../src/app/merchants/restrictedKeys.ts';
import { settleOnce } from '../../src/app/settlement/settleOnce.ts';
import { recordMinedCall, settleX402, type X402SettleDeps } from '../../src/app/x402/settlePayment.ts';
import type { X402Payment } from '../../src/app/x402/verifyPayment.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { TransferAuthorization } from '../../src/domain/transferAuthorization.ts';
import { buildApiServer, buildCheckoutServer } from '../../src/main/webServers.ts';
import { SANDBOX_ACCOUNTS, sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { type ChainHarness, startChainHarness } from '../helpers/chainHarness.ts';
import { DASHBOARD_ORIGIN, dashboardClient } from '../helpers/dashboardClient.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { refundWorkerPasses } from '../helpers/refundWorker.ts';
import { freshSettler } from '../helpers/settler.ts';
import { signAuthorization } from '../helpers/transferAuthorization.ts';

const PRICE = '10000'; // 0.01 USDC: a call worth a cent

describe.each(dialects)('x402 facilitator on %s', (dialect) => {
  let h: ChainHarness;
  let api: FastifyInstance;
  let apiUrl: string;
  let resourceServer: ReturnType<express.Express['listen']>;
  let resourceUrl: string;
  let restrictedKey: string;
  let relaying: RelayAuthorizationsDeps;
  let x402: X402SettleDeps;
  let relayed: Promise<void> = Promise.resolve();
  let payTo: string;
  const relayerAddress = () => h.anvil.addresses[SANDBOX_ACCOUNTS.gaslessRelayer]!;
  const relayerNonce = () => h.anvil.publicClient.getTransactionCount({ address: relayerAddress() });
  /** What the merchant's first x402 address commits to: its wallet and commission when the file starts. */
  const firstTerms = () => ({
    payoutAddress: h.merchant.walletAddress!,
    commissionBps: h.merchant.commissionBps,
  });

  beforeAll(async () => {
    h = await startChainHarness(dialect);
    const chainId = h.anvil.chain.id;
    const chain = authorizationChain(h.anvil.publicClient, chainId, relayerAddress());
    const gasless = gaslessRepository(h.database.handle);
    const { logger } = capturingLogger();
    relaying = {
      gasless,
      chain,
      relayer: createRelayer({
        client: createRpcClient([h.anvil.rpcUrl]),
        chainId,
        relayerKey: sandboxPrivateKey(SANDBOX_ACCOUNTS.gaslessRelayer),
      }),
      payments: h.stores.payments,
      ledger: h.stores.ledger,
      clock: h.clock,
      logger,
    };
    x402 = {
      x402: x402Repository(h.database.handle),
      modes: {
        live: {
          planner: depositPlanner({
            chainId,
            tokenAddress: h.usdc,
            factoryAddress: h.factoryV3,
            treasuryAddress: h.addresses.treasury,
            forwarderVersion: 3,
          }),
          chains: [{ ...chain, tokenAddress: h.usdc, relayerAddress: relayerAddress() }],
        },
      },
      clock: h.clock,
      payoutPolicy: loadConfig({ PAYLINK_DATABASE_URL: h.database.url }).payoutPolicy,
      settleTimeoutMs: 30_000,
      pollIntervalMs: 100,
      // The relayer is the worker's in production; here each wait drives one pass of it, and the clock with it.
      // One pass at a time, as the worker's singleton runs them, however many settles wait at once.
      sleep: (ms) => {
        relayed = relayed.then(async () => {
          await relayOnce(relaying);
          h.clock.advance(ms);
        });
        return relayed;
      },
    };
    const config = loadConfig({
      PAYLINK_DATABASE_URL: h.database.url,
      // The dashboard takes forms from its own origin only.
      PAYLINK_BASE_URL: DASHBOARD_ORIGIN,
      PAYLINK_CHECKOUT_URL: 'http://127.0.0.1',
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_RATE_LIMIT: 'off',
      PAYLINK_RATE_LIMIT_IP: 'off',
    });
    api = await buildApiServer({
      ...h.stores,
      deposits: { live: x402.modes.live!.planner },
      rates: h.rates,
      clock: h.clock,
      logger,
      config,
      x402,
      // A cheaper scrypt cost for the dashboard's one sign-in: the same code, fewer iterations.
      passwords: scryptPasswords({ N: 2 ** 10, r: 8, p: 1 }),
    });
    await api.listen({ host: '127.0.0.1', port: 0 });
    apiUrl = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    ({ key: restrictedKey } = await createRestrictedKey(
      { merchants: h.stores.merchants, clock: h.clock },
      h.merchant.id,
      'live',
      {
        name: 'x402 resource server',
        scopes: ['x402:settle'],
      },
    ));

    // What the merchant's routes advertise, as /supported tells it: its x402 address (made now), the token's domain.
    const supported = await facilitatorCall('GET', 'supported');
    const [kind] = supported.kinds as { network: string; extra: Record<string, string> }[];
    expect(kind).toMatchObject({ network: `eip155:${chainId}`, extra: { asset: h.usdc } });
    const account = await x402Repository(h.database.handle).accountOf(h.merchant.id, 'live', firstTerms());
    payTo = kind!.extra.payTo!;
    expect(payTo).toBe(account!.deposit!.depositAddress);
    const domain = { name: kind!.extra.name!, version: kind!.extra.version! };

    const facilitator = new HTTPFacilitatorClient({
      url: `${apiUrl}/payments/api/x402`,
      createAuthHeaders: async () => {
        const headers = { 'X-API-Key': restrictedKey };
        return { verify: headers, settle: headers, supported: headers };
      },
    });
    const server = registerServerScheme(new x402ResourceServer(facilitator));
    const app = express();
    app.use(
      paymentMiddleware(
        {
          'GET /weather': {
            accepts: {
              scheme: 'exact',
              network: `eip155:${chainId}`,
              payTo,
              price: { asset: h.usdc, amount: PRICE, extra: { name: domain.name, version: domain.version } },
            },
            description: 'Today’s weather',
          },
        },
        server,
      ),
    );
    app.get('/weather', (_request, response) => {
      response.json({ weather: 'sunny' });
    });
    resourceServer = app.listen(0, '127.0.0.1');
    await once(resourceServer, 'listening');
    resourceUrl = `http://127.0.0.1:${(resourceServer.address() as AddressInfo).port}/weather`;
  });

  afterAll(async () => {
    resourceServer?.close();
    await api?.close();
    await h?.close();
  });

  async function facilitatorCall(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<Record<string, unknown>> {
    const response = await fetch(`${apiUrl}/payments/api/x402/${path}`, {
      method,
      headers: { 'X-API-Key': restrictedKey, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, unknown>;
  }

  function requirements(to: string, changes: Record<string, unknown> = {}) {
    return {
      scheme: 'exact',
      network: `eip155:${h.anvil.chain.id}`,
      asset: h.usdc,
      amount: PRICE,
      payTo: to,
      maxTimeoutSeconds: 300,
      extra: {},
      ...changes,
    };
  }

  /**
   * An x402 client paying with this key. The test chain's USDC is no default asset of x402's table (that knows the
   * public chains' USDC), so the client is told to allow it, capped at the price, as a wallet would be.
   */
  function payer(privateKey: `0x${string}`) {
    const client = new x402Client();
    registerClientScheme(client, { signer: privateKeyToAccount(privateKey) });
    client.setSpendControls({
      allowedAssets: [{ network: `eip155:${h.anvil.chain.id}`, asset: h.usdc, maxAmountPerPayment: PRICE }],
    });
    return client;
  }

  const payingFetch = (privateKey: `0x${string}`) => wrapFetchWithPayment(fetch, payer(privateKey));

  it('a client pays a protected route; the merchant sees the call as a paid payment with payment.paid', async () => {
    const before = await h.balanceOf(payTo);
    const response = await payingFetch(sandboxPrivateKey(SANDBOX_ACCOUNTS.customer))(resourceUrl);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ weather: 'sunny' });
    const settled = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!);
    expect(settled).toMatchObject({ success: true, network: `eip155:${h.anvil.chain.id}` });
    expect(settled.payer?.toLowerCase()).toBe(h.addresses.customer.toLowerCase());
    expect(await h.balanceOf(payTo)).toBe(before + BigInt(PRICE));

    const list = await (
      await fetch(`${apiUrl}/payments/api/payments/`, { headers: { 'X-API-Key': restrictedKey } })
    ).json();
    // A key with x402:settle alone does not list payments: the merchant's secret key does.
    expect(list).toMatchObject({ code: 'FORBIDDEN' });
    const [payment] = await h.stores.payments.listForMerchant({
      merchantId: h.merchant.id,
      mode: 'live',
      limit: 10,
    });
    expect(payment).toMatchObject({
      status: 'paid',
      kind: 'payment',
      txid: settled.transaction,
      description: resourceUrl,
      amountReceivedBaseUnits: BigInt(PRICE),
    });
    const events = await h.stores.ledger.listEvents(payment!.id);
    expect(events.map((e) => e.type)).toEqual(['payment.paid']);
    expect(JSON.parse(events[0]!.payload)).toMatchObject({
      event: 'payment.paid',
      payment_id: payment!.id,
      status: 'paid',
      usdc_amount: '0.01',
      txid: settled.transaction,
    });
  });

  it('a replayed payment header settles once: the same transaction, no second transfer, no second payment', async () => {
    let header: string | undefined;
    const recording: typeof fetch = async (input, init) => {
      // The wrapper retries with a Request carrying the payment header.
      const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
      const signature = headers.get('PAYMENT-SIGNATURE');
      if (signature) header = signature;
      return fetch(input, init);
    };
    const first = await wrapFetchWithPayment(
      recording,
      payer(sandboxPrivateKey(SANDBOX_ACCOUNTS.customer)),
    )(resourceUrl);
    expect(first.status).toBe(200);
    const firstSettled = decodePaymentResponseHeader(first.headers.get('PAYMENT-RESPONSE')!);
    const balance = await h.balanceOf(payTo);
    const nonce = await relayerNonce();
    const paymentsBefore = await h.stores.payments.listForMerchant({
      merchantId: h.merchant.id,
      mode: 'live',
      limit: 100,
    });

    const replay = await fetch(resourceUrl, { headers: { 'PAYMENT-SIGNATURE': header! } });
    // The resource server's verify finds the nonce submitted already: the replay is refused, nothing is sent.
    expect(replay.status).toBe(402);
    expect(await h.balanceOf(payTo)).toBe(balance);
    expect(await relayerNonce()).toBe(nonce);

    // Settling the same payload again straight at the facilitator answers the first outcome.
    const payload = JSON.parse(Buffer.from(header!, 'base64').toString('utf8'));
    const again = await facilitatorCall('POST', 'settle', {
      x402Version: 2,
      paymentPayload: payload,
      paymentRequirements: payload.accepted,
    });
    expect(again).toMatchObject({ success: true, transaction: firstSettled.transaction });
    expect(await relayerNonce()).toBe(nonce);
    const paymentsAfter = await h.stores.payments.listForMerchant({
      merchantId: h.merchant.id,
      mode: 'live',
      limit: 100,
    });
    expect(paymentsAfter).toHaveLength(paymentsBefore.length);
  });

  it('a payer without funds is refused at /verify, without gas, and the route is not served', async () => {
    const nonce = await relayerNonce();
    const response = await payingFetch(generatePrivateKey())(resourceUrl);
    expect(response.status).toBe(402);
    expect(await relayerNonce()).toBe(nonce);
  });

  /** A verify (or settle) request for an authorization the customer signs, with the changes asked for. */
  async function signedRequest(
    changes: Partial<TransferAuthorization> = {},
    requirementChanges: Record<string, unknown> = {},
  ) {
    const nowS = BigInt(Math.floor(h.clock.now().getTime() / 1000));
    const authorization: TransferAuthorization = {
      from: h.addresses.customer.toLowerCase(),
      to: payTo.toLowerCase(),
      valueBaseUnits: BigInt(PRICE),
      validAfter: nowS - 600n,
      validBefore: nowS + 300n,
      nonce: toHex(randomBytes(32)),
      ...changes,
    };
    const domain = (await readAuthorizationDomain(h.anvil.publicClient, h.usdc, h.anvil.chain.id))!;
    const signature = await signAuthorization(
      h.anvil.wallet(SANDBOX_ACCOUNTS.customer),
      domain,
      authorization,
    );
    const accepted = requirements(payTo, requirementChanges);
    return {
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        resource: { url: 'https://api.example.test/report' },
        accepted,
        payload: {
          signature,
          authorization: {
            from: authorization.from,
            to: authorization.to,
            value: authorization.valueBaseUnits.toString(),
            validAfter: authorization.validAfter.toString(),
            validBefore: authorization.validBefore.toString(),
            nonce: authorization.nonce,
          },
        },
      },
      paymentRequirements: accepted,
    };
  }

  it('/verify refuses, without gas, an expired authorization, another payTo, another network, too little', async () => {
    const nonce = await relayerNonce();
    const nowS = BigInt(Math.floor(h.clock.now().getTime() / 1000));
    const other = h.addresses.merchant.toLowerCase();
    const cases: [Partial<TransferAuthorization>, Record<string, unknown>, string][] = [
      [{ validBefore: nowS }, {}, 'invalid_exact_evm_payload_authorization_valid_before'],
      [{ validAfter: nowS }, {}, 'invalid_exact_evm_payload_authorization_valid_after'],
      [{ to: other }, { payTo: other }, 'invalid_exact_evm_recipient_mismatch'],
      [{}, { network: 'eip155:137' }, 'invalid_exact_evm_network_mismatch'],
      [{ valueBaseUnits: BigInt(PRICE) - 1n }, {}, 'invalid_exact_evm_authorization_value'],
    ];
    for (const [changes, requirementChanges, reason] of cases) {
      const verdict = await facilitatorCall(
        'POST',
        'verify',
        await signedRequest(changes, requirementChanges),
      );
      expect(verdict, reason).toMatchObject({ isValid: false, invalidReason: reason });
    }
    // The same authorization, fit: valid, and still nothing spent.
    expect(await facilitatorCall('POST', 'verify', await signedRequest())).toEqual({
      isValid: true,
      payer: h.addresses.customer.toLowerCase(),
    });
    expect(await relayerNonce()).toBe(nonce);
  });

  it('/verify refuses an authorization once settled (nonce used); its settle, repeated, answers the same', async () => {
    const request = await signedRequest();
    const settled = await facilitatorCall('POST', 'settle', request);
    expect(settled).toMatchObject({ success: true, amount: PRICE, network: `eip155:${h.anvil.chain.id}` });
    expect(await facilitatorCall('POST', 'verify', request)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    });
    const nonce = await relayerNonce();
    const [again, raced] = await Promise.all([
      facilitatorCall('POST', 'settle', request),
      facilitatorCall('POST', 'settle', request),
    ]);
    expect(again).toEqual(settled);
    expect(raced).toEqual(settled);
    expect(await relayerNonce()).toBe(nonce);
  });

  it('two settles of a new payload at once: one call, one transfer, the same answer to both', async () => {
    const request = await signedRequest();
    const balance = await h.balanceOf(payTo);
    const [one, other] = await Promise.all([
      facilitatorCall('POST', 'settle', request),
      facilitatorCall('POST', 'settle', request),
    ]);
    expect(one).toMatchObject({ success: true });
    expect(other).toEqual(one);
    expect(await h.balanceOf(payTo)).toBe(balance + BigInt(PRICE));
    const nonce = request.paymentPayload.payload.authorization.nonce;
    const call = await x402Repository(h.database.handle).findCall(
      h.anvil.chain.id,
      h.usdc,
      h.addresses.customer,
      nonce,
    );
    expect(call?.payment).toMatchObject({ status: 'paid', txid: one.transaction });
  });

  /** The request as the use case takes it. */
  function asPayment(body: Awaited<ReturnType<typeof signedRequest>>): X402Payment {
    const signed = body.paymentPayload.payload;
    const requirement = {
      scheme: 'exact',
      network: `eip155:${h.anvil.chain.id}`,
      asset: h.usdc,
      amountBaseUnits: BigInt(PRICE),
      payTo,
    };
    return {
      requirements: requirement,
      accepted: requirement,
      authorization: {
        from: signed.authorization.from,
        to: signed.authorization.to,
        valueBaseUnits: BigInt(signed.authorization.value),
        validAfter: BigInt(signed.authorization.validAfter),
        validBefore: BigInt(signed.authorization.validBefore),
        nonce: signed.authorization.nonce,
      },
      signature: signed.signature,
    };
  }

  /** Settles without a relayer running and without waiting: the call is queued, not mined. */
  const queue = (payment: X402Payment) =>
    settleX402(
      { ...x402, settleTimeoutMs: 0, sleep: async () => {} },
      { merchant: h.merchant, mode: 'live' },
      payment,
    );

  /** The worker's relayer, as main/worker.ts wires it: it reports what it mined, and the call is paid. */
  const workerRelayer = () => ({
    ...relaying,
    onMined: (mined: GaslessAuthorization) =>
      recordMinedCall(
        { x402: x402Repository(h.database.handle), clock: h.clock, payoutPolicy: x402.payoutPolicy },
        mined,
      ),
  });

  it('a settle that gives up answers settlement_pending; once the relayer mines it, the call is paid all the same', async () => {
    const body = await signedRequest();
    const signed = body.paymentPayload.payload;
    const answer = await queue(asPayment(body));
    expect(answer).toMatchObject({ success: false, errorReason: 'settlement_pending', transaction: '' });
    const store = x402Repository(h.database.handle);
    const queued = (await store.findCall(
      h.anvil.chain.id,
      h.usdc,
      signed.authorization.from,
      signed.authorization.nonce,
    ))!;
    expect(queued.payment.status).toBe('pending');

    const worker = workerRelayer();
    expect(await relayOnce(worker)).toMatchObject({ kind: 'sent' });
    expect(await relayOnce(worker)).toMatchObject({ kind: 'mined' });
    const paid = (await h.stores.payments.findById(queued.payment.id))!;
    expect(paid).toMatchObject({ status: 'paid', amountReceivedBaseUnits: BigInt(PRICE) });
    expect((await h.stores.ledger.listEvents(paid.id)).map((e) => e.type)).toEqual(['payment.paid']);
    // Settled again, it answers the transaction; and nothing is recorded twice.
    expect(await facilitatorCall('POST', 'settle', body)).toMatchObject({
      success: true,
      transaction: paid.txid,
    });
    expect((await h.stores.ledger.listEvents(paid.id)).map((e) => e.type)).toEqual(['payment.paid']);
  });

  it('a call someone else submits first (front-running) is recorded paid by their transaction, not failed', async () => {
    const frontRunner = h.anvil.wallet(4);
    const frontRun = async (body: Awaited<ReturnType<typeof signedRequest>>, fees = {}) => {
      const { authorization, signature } = asPayment(body);
      return frontRunner.sendTransaction({
        to: h.usdc,
        data: relaying.chain.callData(authorization, signature) as `0x${string}`,
        ...fees,
      });
    };
    const callOf = async (body: Awaited<ReturnType<typeof signedRequest>>) => {
      const { authorization } = body.paymentPayload.payload;
      return (await x402Repository(h.database.handle).findCall(
        h.anvil.chain.id,
        h.usdc,
        authorization.from,
        authorization.nonce,
      ))!;
    };
    const worker = workerRelayer();

    // Before the relayer sends it: the relayer finds the nonce used, and the transfer made as signed.
    const early = await signedRequest();
    expect(await queue(asPayment(early))).toMatchObject({ errorReason: 'settlement_pending' });
    const earlyTx = await frontRun(early);
    const nonce = await relayerNonce();
    expect(await relayOnce(worker)).toMatchObject({ kind: 'mined' });
    expect(await relayerNonce()).toBe(nonce);
    const earlyCall = await callOf(early);
    expect(earlyCall.authorization).toMatchObject({ status: 'mined', txHash: earlyTx, failureReason: null });
    expect(earlyCall.payment).toMatchObject({ status: 'paid', txid: earlyTx });
    expect((await h.stores.ledger.listEvents(earlyCall.payment.id)).map((e) => e.type)).toEqual([
      'payment.paid',
    ]);
    // A settle of the same payload answers the front-runner's transaction.
    expect(await facilitatorCall('POST', 'settle', early)).toMatchObject({
      success: true,
      transaction: earlyTx,
    });

    // After: the relayer's transaction waits in the mempool, the front-runner's pays more and is mined first, the
    // relayer's reverts. It is recorded mined by the front-runner's transaction, with what the revert cost.
    const late = await signedRequest();
    await queue(asPayment(late));
    await h.anvil.testClient.setAutomine(false);
    try {
      expect(await relayOnce(worker)).toMatchObject({ kind: 'sent' });
      const fees = await h.anvil.publicClient.estimateFeesPerGas();
      const lateTx = await frontRun(late, {
        maxFeePerGas: fees.maxFeePerGas * 10n,
        maxPriorityFeePerGas: fees.maxFeePerGas * 5n,
        // Not estimated: against the pending block (the relayer's transaction in it) it would revert.
        gas: 200_000n,
      });
      await h.anvil.testClient.mine({ blocks: 1 });
      const outcome = await relayOnce(worker);
      expect(outcome).toMatchObject({ kind: 'mined' });
      const lateCall = await callOf(late);
      expect(lateCall.authorization).toMatchObject({ status: 'mined', txHash: lateTx });
      expect(lateCall.authorization.feeWei).toBeGreaterThan(0n);
      expect(lateCall.payment).toMatchObject({ status: 'paid', txid: lateTx });
    } finally {
      await h.anvil.testClient.setAutomine(true);
    }
  });

  it('the settler flushes the calls from the merchant’s x402 address in one batch, split on chain', async () => {
    // Every call so far went to the one address: the watcher credits it, as any deposit address.
    await h.poll();
    await h.finalizeAll();
    await h.poll();
    const account = (await x402Repository(h.database.handle).accountOf(h.merchant.id, 'live', firstTerms()))!;
    const held = await h.balanceOf(payTo);
    expect(held).toBeGreaterThanOrEqual(3n * BigInt(PRICE));
    // Not through findById: that answers payments (kind `payment`) only.
    const credited = await x402Repository(h.database.handle).accountOf(h.merchant.id, 'live', firstTerms());
    expect(credited).toMatchObject({ status: 'paid', amountReceivedBaseUnits: held });
    const [merchantBefore, treasuryBefore] = await Promise.all([
      h.balanceOf(h.addresses.merchant),
      h.balanceOf(h.addresses.treasury),
    ]);
    const options = {
      chainId: h.anvil.chain.id,
      payoutPolicy: {
        ...loadConfig({ PAYLINK_DATABASE_URL: h.database.url }).payoutPolicy,
        dustThresholdBaseUnits: 1n,
      },
      relayerLowBalanceWei: 1n,
    };
    const settler = freshSettler(h, capturingLogger().logger);
    expect((await settleOnce(settler, options)).send).toMatchObject({
      kind: 'sent',
      paymentIds: [account.id],
    });
    await h.finalizeAll();
    await settleOnce(settler, options);
    // The commission as the forwarder computes it (2.5 %, rounded down), the rest to the merchant: nothing kept.
    const commission = (held * 250n) / 10_000n;
    expect(await h.balanceOf(h.addresses.treasury)).toBe(treasuryBefore + commission);
    expect(await h.balanceOf(h.addresses.merchant)).toBe(merchantBefore + held - commission);
    expect(await h.balanceOf(payTo)).toBe(0n);
    // The x402 address is no payment of the merchant's: its list shows the calls alone.
    const listed = await h.stores.payments.listForMerchant({
      merchantId: h.merchant.id,
      mode: 'live',
      limit: 100,
    });
    expect(listed.map((p) => p.id)).not.toContain(account.id);
  });

  it('answers a body that is no x402 request with 400 naming the field, and a forged signature as invalid', async () => {
    const response = await fetch(`${apiUrl}/payments/api/x402/verify`, {
      method: 'POST',
      headers: { 'X-API-Key': restrictedKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ x402Version: 1, paymentPayload: {}, paymentRequirements: {} }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'x402Version' });
    const forged = await signedRequest();
    forged.paymentPayload.payload.signature = `0x${'11'.repeat(65)}`;
    expect(await facilitatorCall('POST', 'verify', forged)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_signature',
    });
    expect(await facilitatorCall('POST', 'settle', forged)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_signature',
      transaction: '',
    });
  });

  it('a key without x402:settle is refused with 403 naming the scope', async () => {
    const { key } = await createRestrictedKey(
      { merchants: h.stores.merchants, clock: h.clock },
      h.merchant.id,
      'live',
      {
        name: 'reader',
        scopes: ['payments:read'],
      },
    );
    const response = await fetch(`${apiUrl}/payments/api/x402/supported`, { headers: { 'X-API-Key': key } });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: 'This restricted API key lacks the scope x402:settle',
      code: 'FORBIDDEN',
    });
  });

  it('through the SDK: settles a call, whose payment.paid names the route and payer; the merchant exports, sees and refunds it', async () => {
    const facilitator = new PaylinkClient({ apiKey: restrictedKey, baseUrl: apiUrl });
    const supported = await facilitator.x402Supported();
    expect(supported.kinds[0]).toMatchObject({ network: `eip155:${h.anvil.chain.id}`, extra: { payTo } });
    const { paymentPayload, paymentRequirements } = await signedRequest();
    const customer = h.addresses.customer.toLowerCase();
    expect(await facilitator.x402Verify(paymentPayload, paymentRequirements)).toEqual({
      isValid: true,
      payer: customer,
    });
    const settled = await facilitator.x402Settle(paymentPayload, paymentRequirements);
    expect(settled).toMatchObject({ success: true, payer: customer, amount: PRICE });
    const call = (await x402Repository(h.database.handle).findCall(
      h.anvil.chain.id,
      h.usdc,
      customer,
      paymentPayload.payload.authorization.nonce,
    ))!;
    const paymentId = call.payment.id;
    const [paidEvent] = await h.stores.ledger.listEvents(paymentId);
    const body = JSON.parse(paidEvent!.payload) as X402PaymentPaidEvent;
    expect(body).toMatchObject({ event: 'payment.paid', payment_id: paymentId, txid: settled.transaction });
    expect(body.x402).toEqual({
      resource_url: 'https://api.example.test/report',
      payer: customer,
      network: `eip155:${h.anvil.chain.id}`,
    });

    // The merchant's own key (reading payments, writing refunds) finds the call like any payment.
    const { key } = await createRestrictedKey(
      { merchants: h.stores.merchants, clock: h.clock },
      h.merchant.id,
      'live',
      {
        name: 'books',
        scopes: ['payments:read', 'refunds:write', 'refunds:read'],
      },
    );
    const merchant = new PaylinkClient({ apiKey: key, baseUrl: apiUrl });
    const csv = (await merchant.exportPayments()).split('\r\n');
    const row = csv.find((line) => line.startsWith(`${paymentId},`));
    expect(row, csv[0]).toContain(settled.transaction);
    // Paid, priced and received in USDC: status, amount, currency, USDC due, USDC received.
    expect(row).toContain(',paid,0.01,USDC,0.01,0.01,');

    // The status API shows the call paid, though no transfer was made to it (its money went to the x402 address).
    expect(await merchant.getPayment(paymentId)).toMatchObject({
      status: 'paid',
      amount_received: '0.01',
      amount_due: '0.00',
      txid: settled.transaction,
    });
    // Its checkout page shows it paid, with its transaction: the page is the x402 address's, which the call paid.
    const checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: { name: 'anvil', chainId: h.anvil.chain.id, explorerUrl: '' },
    });
    try {
      const status = await checkout.inject(`/pay/${paymentId}/status.json`);
      expect(status.statusCode).toBe(200);
      expect(status.json()).toMatchObject({ status: 'paid', stage: 'paid', txid: settled.transaction });
      const page = await checkout.inject(`/pay/${paymentId}`);
      expect(page.statusCode).toBe(200);
      // The paid section is the one shown (the others carry `hidden`).
      expect(page.body).toContain('data-stage="paid" aria-labelledby="title-paid">');
    } finally {
      await checkout.close();
    }

    const refund = await merchant.createRefund({
      payment_id: paymentId,
      amount: '0.01',
      address: customer,
      reason: 'the report was empty',
    });
    expect(refund).toMatchObject({
      payment_id: paymentId,
      amount: '0.01',
      currency: 'USDC',
    });
    expect(refund.address?.toLowerCase()).toBe(customer);
    // The merchant funds it from its wallet with a plain transfer; the worker sends it on to the payer.
    expect(refund.status).toBe('awaiting_funds');
    const payerBefore = await h.balanceOf(h.addresses.customer);
    await h.pay(refund.deposit_address!, BigInt(PRICE), { fromIndex: SANDBOX_ACCOUNTS.merchant });
    expect(await refundWorkerPasses(h, capturingLogger().logger)).toContain(refund.refund_id);
    expect(await h.balanceOf(h.addresses.customer)).toBe(payerBefore + BigInt(PRICE));
    expect(await merchant.getRefund(refund.refund_id)).toMatchObject({
      status: 'refunded',
      amount_funded: '0.01',
      amount_sent: '0.01',
    });
    expect(await merchant.getPayment(paymentId)).toMatchObject({
      status: 'paid',
      amount_refunded: '0.01',
      refunds: [{ refund_id: refund.refund_id, status: 'refunded' }],
    });

    const dashboard = dashboardClient({ app: api, stores: h.stores, clock: h.clock });
    const session = await dashboard.signedIn('books@chain.example', 'merchant', h.merchant.id);
    const list = await session.get('/dashboard/payments');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(paymentId);
    const detail = await session.get(`/dashboard/payments/${paymentId}`);
    expect(detail.statusCode).toBe(200);
    // What it brought; its transfer is not listed (it went to the x402 address, not to this payment).
    // Refunded in full above: the dashboard says so.
    expect(detail.body).toContain('<span class="status status-refunded">');
    expect(detail.body).toContain('<dt>USDC received</dt><dd>0.01</dd>');
  });
  it('a changed payout wallet gets a new x402 address: the next call pays the new wallet exactly, the old address still flushes to the old wallet', async () => {
    const oldPayTo = payTo;
    const newWallet = privateKeyToAccount(generatePrivateKey()).address;
    const current = (await h.stores.merchants.find(h.merchant.id))!;
    await h.stores.merchants.save({ ...current, walletAddress: newWallet });

    // A stale payTo (the old address) is refused, saying why; /supported names the new one.
    const stale = await facilitatorCall('POST', 'verify', await signedRequest());
    expect(stale).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_recipient_mismatch',
      invalidMessage: expect.stringContaining('earlier x402 address of this merchant'),
    });
    // Another address altogether is refused with the plain sentence.
    const elsewhere = h.addresses.merchant.toLowerCase();
    expect(
      await facilitatorCall('POST', 'verify', await signedRequest({ to: elsewhere }, { payTo: elsewhere })),
    ).toMatchObject({
      invalidMessage: 'The payment is not to this merchant’s Paylink x402 address on this network',
    });
    const supported = await facilitatorCall('GET', 'supported');
    const [kind] = supported.kinds as { extra: Record<string, string> }[];
    payTo = kind!.extra.payTo!;
    expect(payTo).not.toBe(oldPayTo);
    const store = x402Repository(h.database.handle);
    const [oldAccount, newAccount] = await Promise.all([
      store.accountOf(h.merchant.id, 'live', firstTerms()),
      store.accountOf(h.merchant.id, 'live', {
        payoutAddress: newWallet,
        commissionBps: h.merchant.commissionBps,
      }),
    ]);
    expect(oldAccount!.deposit!.depositAddress).toBe(oldPayTo);
    expect(newAccount!.deposit!.depositAddress).toBe(payTo);

    const settled = await facilitatorCall('POST', 'settle', await signedRequest());
    expect(settled).toMatchObject({ success: true, amount: PRICE });
    expect(await h.balanceOf(payTo)).toBe(BigInt(PRICE));
    // Someone still pays the old address (a stale 402 body, a plain transfer): committed to the old wallet.
    expect(await h.balanceOf(oldPayTo)).toBe(0n);
    await h.pay(oldPayTo, BigInt(PRICE));
    const oldHeld = BigInt(PRICE);

    await h.poll();
    await h.finalizeAll();
    await h.poll();
    const [oldWalletBefore, treasuryBefore] = await Promise.all([
      h.balanceOf(h.addresses.merchant),
      h.balanceOf(h.addresses.treasury),
    ]);
    const options = {
      chainId: h.anvil.chain.id,
      payoutPolicy: {
        ...loadConfig({ PAYLINK_DATABASE_URL: h.database.url }).payoutPolicy,
        dustThresholdBaseUnits: 1n,
      },
      relayerLowBalanceWei: 1n,
    };
    const settler = freshSettler(h, capturingLogger().logger);
    const { send } = await settleOnce(settler, options);
    // One batch flushes both addresses.
    expect(send).toMatchObject({
      kind: 'sent',
      paymentIds: expect.arrayContaining([oldAccount!.id, newAccount!.id]),
    });
    await h.finalizeAll();
    await settleOnce(settler, options);
    const commission = (BigInt(PRICE) * 250n) / 10_000n;
    // Each address pays the wallet it committed to, exactly; the treasury its commission of each.
    expect(await h.balanceOf(newWallet)).toBe(BigInt(PRICE) - commission);
    expect(await h.balanceOf(h.addresses.merchant)).toBe(oldWalletBefore + oldHeld - commission);
    expect(await h.balanceOf(h.addresses.treasury)).toBe(treasuryBefore + 2n * commission);
    expect(await h.balanceOf(payTo)).toBe(0n);
    expect(await h.balanceOf(oldPayTo)).toBe(0n);
  });
});
