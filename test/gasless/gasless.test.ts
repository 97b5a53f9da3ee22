/**
 * Gasless payment, the accepting half: a customer's signed EIP-3009 authorization is taken for a payment only
 * when the relayer could not spend gas on it for nothing — on anvil with the USDC stand-in, on each database.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pino from 'pino';
import { type Address, type Hex, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import {
  authorizationChain,
  readAuthorizationDomain,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  transferWithAuthorizationCall,
} from '../../src/adapters/chain/eip3009.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import type { CheckoutGasless } from '../../src/adapters/checkout/gaslessRoutes.ts';
import { gaslessRepository } from '../../src/adapters/db/gaslessRepository.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import {
  type AcceptAuthorizationDeps,
  acceptAuthorization,
  gaslessAmountDue,
} from '../../src/app/gasless/acceptAuthorization.ts';
import type { AuthorizationChain, GaslessStore } from '../../src/app/gasless/ports.ts';
import {
  type RelayAuthorizationsDeps,
  type RelayOptions,
  relayOnce,
} from '../../src/app/gasless/relayAuthorizations.ts';
import type { RateLimitStore } from '../../src/app/shared/ports.ts';
import { loadConfig } from '../../src/config/index.ts';
import { formatDecimal } from '../../src/domain/decimal.ts';
import type { Payment } from '../../src/domain/payment.ts';
import {
  type AuthorizationDomain,
  TRANSFER_AUTHORIZATION_TYPES,
  type TransferAuthorization,
} from '../../src/domain/transferAuthorization.ts';
import { rateLimitBuckets } from '../../src/main/rateLimitBuckets.ts';
import { buildCheckoutServer } from '../../src/main/webServers.ts';
import { sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { type ChainHarness, PAYMENT_TTL_MS, ROLES, startChainHarness } from '../helpers/chainHarness.ts';
import { runCli } from '../helpers/cli.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { signAuthorization } from '../helpers/transferAuthorization.ts';

/** PAYLINK_MIN_AMOUNT's default: the least a signed transfer may carry. */
const MIN_VALUE = 500_000n;

describe.each(dialects)('accepting a signed authorization on %s', (dialect) => {
  let h: ChainHarness;
  let deps: AcceptAuthorizationDeps;
  let domain: AuthorizationDomain;
  beforeEach(async () => {
    h = await startChainHarness(dialect);
    deps = {
      payments: h.stores.payments,
      ledger: h.stores.ledger,
      gasless: gaslessRepository(h.database.handle),
      chains: [authorizationChain(h.anvil.publicClient, h.anvil.chain.id, h.addresses.relayer)],
      clock: h.clock,
      minValueBaseUnits: MIN_VALUE,
    };
    domain = (await readAuthorizationDomain(h.anvil.publicClient, h.usdc, h.anvil.chain.id))!;
  });
  afterEach(() => h.close());

  const nowS = () => BigInt(Math.floor(h.clock.now().getTime() / 1000));
  const authorizationFor = (payment: Payment, changes: Partial<TransferAuthorization> = {}) => ({
    from: h.addresses.customer.toLowerCase(),
    to: payment.deposit!.depositAddress.toLowerCase(),
    valueBaseUnits: payment.quote.usdcBaseUnits,
    validAfter: nowS() - 5n,
    validBefore: BigInt(payment.expiresAt.getTime() / 1000),
    nonce: toHex(randomBytes(32)),
    ...changes,
  });
  const sign = (auth: TransferAuthorization, signer: number = ROLES.customer): Promise<Hex> =>
    signAuthorization(h.anvil.wallet(signer), domain, auth);
  const accept = async (payment: Payment, auth: TransferAuthorization, signature?: Hex) =>
    acceptAuthorization(deps, {
      paymentId: payment.id,
      authorization: auth,
      signature: signature ?? (await sign(auth)),
      clientAddress: '203.0.113.7',
    });
  const relayerNonce = () => h.anvil.publicClient.getTransactionCount({ address: h.addresses.relayer });
  const stored = (payment: Payment) => deps.gasless.listForPayment(payment.id);

  it('takes an authorization of exactly the amount due, once; a second while it is in flight is refused', async () => {
    const payment = await h.createPayment('27');
    const nonceBefore = await relayerNonce();
    const auth = authorizationFor(payment);
    const record = await accept(payment, auth);
    expect(record).toMatchObject({ status: 'pending', valueBaseUnits: 27_000_000n, from: auth.from });
    expect(record.id).toMatch(/^gas_/);
    expect(await stored(payment)).toEqual([record]);

    await expect(accept(payment, auth)).rejects.toMatchObject({ code: 'AUTHORIZATION_USED', status: 409 });
    await expect(accept(payment, authorizationFor(payment))).rejects.toMatchObject({
      code: 'AUTHORIZATION_IN_FLIGHT',
      status: 409,
    });
    expect(await stored(payment)).toHaveLength(1);
    expect(await relayerNonce()).toBe(nonceBefore);
  });

  it('refuses, before any gas is spent, a forged signature, another address, more than due, a link outlived', async () => {
    const payment = await h.createPayment('27');
    const nonceBefore = await relayerNonce();
    const forged = authorizationFor(payment);
    await expect(accept(payment, forged, await sign(forged, ROLES.merchant))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The signature does not match the authorization: nothing was sent',
    });
    const tampered = authorizationFor(payment);
    await expect(
      accept(payment, { ...tampered, valueBaseUnits: 1_000_000n }, await sign(tampered)),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      accept(payment, authorizationFor(payment, { to: h.addresses.merchant.toLowerCase() })),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The authorization pays another address than this payment’s deposit address',
    });
    await expect(
      accept(payment, authorizationFor(payment, { valueBaseUnits: 27_000_001n })),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message:
        'The authorization transfers more than is due on this payment: sign a transfer of exactly 27.00 USDC',
    });
    const outlives = BigInt(payment.expiresAt.getTime() / 1000) + 601n;
    await expect(accept(payment, authorizationFor(payment, { validBefore: outlives }))).rejects.toMatchObject(
      {
        code: 'VALIDATION_ERROR',
        message: 'The authorization stays valid too long after the payment link expires',
      },
    );
    expect(await stored(payment)).toEqual([]);
    expect(await relayerNonce()).toBe(nonceBefore);
  });

  it('after a partial transfer, takes what is still due and not one base unit more', async () => {
    const payment = await h.createPayment('27');
    await h.pay(payment.deposit!.depositAddress, 10_000_000n);
    await h.poll();
    await expect(
      accept(payment, authorizationFor(payment, { valueBaseUnits: 17_000_001n })),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await accept(payment, authorizationFor(payment, { valueBaseUnits: 17_000_000n }))).toMatchObject({
      status: 'pending',
      valueBaseUnits: 17_000_000n,
    });
  });

  it('refuses a nonce the token has used already (a replay), a paused token, and an expired link', async () => {
    const replayedFor = await h.createPayment('27');
    const replayed = authorizationFor(replayedFor);
    const signature = await sign(replayed);
    const hash = await h.anvil.wallet(ROLES.relayer).sendTransaction({
      to: h.usdc,
      data: transferWithAuthorizationCall(replayed, signature),
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash });
    // Not yet seen by the watcher: the payment still looks unpaid, and only the token knows the nonce is spent.
    await expect(accept(replayedFor, replayed, signature)).rejects.toMatchObject({
      code: 'AUTHORIZATION_USED',
    });

    const payment = await h.createPayment('27');
    await h.control('pause');
    await expect(accept(payment, authorizationFor(payment))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The token would refuse this transfer: Pausable: paused',
    });
    await h.control('unpause');

    h.clock.advance(PAYMENT_TTL_MS + 1_000);
    await expect(accept(payment, authorizationFor(payment))).rejects.toMatchObject({
      code: 'PAYMENT_EXPIRED',
      status: 409,
    });
    expect(await stored(payment)).toEqual([]);
    expect(await stored(replayedFor)).toEqual([]);
  });

  it('refuses dust, and a part of what is due, saying what to sign, before any gas is spent', async () => {
    const payment = await h.createPayment('27');
    const nonceBefore = await relayerNonce();
    for (const valueBaseUnits of [1n, 26_999_999n])
      await expect(accept(payment, authorizationFor(payment, { valueBaseUnits }))).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        status: 400,
        field: 'value',
        message:
          'The authorization transfers less than is due on this payment: sign a transfer of exactly 27.00 USDC',
      });
    expect(await stored(payment)).toEqual([]);
    expect(await relayerNonce()).toBe(nonceBefore);
  });

  it('takes a remainder at the minimum, and refuses one a base unit below it: that is sent from the wallet', async () => {
    const atMinimum = await h.createPayment('27');
    await h.pay(atMinimum.deposit!.depositAddress, 27_000_000n - MIN_VALUE);
    const belowMinimum = await h.createPayment('27');
    await h.pay(belowMinimum.deposit!.depositAddress, 27_000_000n - MIN_VALUE + 1n);
    await h.poll();

    const remainder = MIN_VALUE - 1n;
    await expect(
      accept(belowMinimum, authorizationFor(belowMinimum, { valueBaseUnits: remainder })),
    ).rejects.toMatchObject({
      code: 'GASLESS_UNAVAILABLE',
      status: 409,
      message:
        'The 0.499999 USDC still due is below 0.50 USDC, the least a signed transfer may carry: send it from your wallet',
    });
    expect(await stored(belowMinimum)).toEqual([]);
    expect(await accept(atMinimum, authorizationFor(atMinimum, { valueBaseUnits: MIN_VALUE }))).toMatchObject(
      { status: 'pending', valueBaseUnits: MIN_VALUE },
    );
  });

  it('asks nothing more once the transfers seen reach what the merchant tolerates', async () => {
    const payment = await h.createPayment('27');
    const tolerant = { ...payment, underpaymentToleranceBps: 100 }; // 1 %: paid from 26.73
    await h.pay(payment.deposit!.depositAddress, 26_730_000n);
    await h.poll();
    const rest = authorizationFor(payment, { valueBaseUnits: 270_000n });
    await expect(
      acceptAuthorization(
        { ...deps, payments: { findById: async () => tolerant } },
        {
          paymentId: payment.id,
          authorization: rest,
          signature: await sign(rest),
          clientAddress: '203.0.113.7',
        },
      ),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'Nothing is due on this payment any more' });
  });

  it('refuses when the customer holds less than the authorization, in the token’s words', async () => {
    const payment = await h.createPayment('27');
    const poor = ROLES.merchant; // holds no USDC
    const auth = authorizationFor(payment, { from: h.anvil.addresses[poor]!.toLowerCase() });
    await expect(accept(payment, auth, await sign(auth, poor))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^The token would refuse this transfer: ERC20InsufficientBalance/),
    });
    const balance = await h.anvil.publicClient.readContract({
      address: h.usdc,
      abi: testUsdcAbi,
      functionName: 'balanceOf',
      args: [h.anvil.addresses[poor]!],
    });
    expect(balance).toBe(0n);
  });

  it('says so when gasless payment is not offered on the payment’s chain', async () => {
    const payment = await h.createPayment('27');
    await expect(
      acceptAuthorization(
        { ...deps, chains: [] },
        {
          paymentId: payment.id,
          authorization: authorizationFor(payment),
          signature: '0x',
          clientAddress: '203.0.113.7',
        },
      ),
    ).rejects.toMatchObject({ code: 'GASLESS_UNAVAILABLE', status: 409 });
  });
});

describe.each(dialects)('relaying signed authorizations on %s', (dialect) => {
  /** Anvil account 5: the gasless relayer's own key, never the settler's. */
  const GASLESS_RELAYER = 5;
  let h: ChainHarness;
  let accepting: AcceptAuthorizationDeps;
  let relaying: RelayAuthorizationsDeps;
  let domain: AuthorizationDomain;
  beforeEach(async () => {
    h = await startChainHarness(dialect);
    const chain = authorizationChain(
      h.anvil.publicClient,
      h.anvil.chain.id,
      h.anvil.addresses[GASLESS_RELAYER]!,
    );
    const gasless = gaslessRepository(h.database.handle);
    accepting = {
      payments: h.stores.payments,
      ledger: h.stores.ledger,
      gasless,
      chains: [chain],
      clock: h.clock,
      minValueBaseUnits: MIN_VALUE,
    };
    relaying = {
      gasless,
      chain,
      relayer: createRelayer({
        client: createRpcClient([h.anvil.rpcUrl]),
        chainId: h.anvil.chain.id,
        relayerKey: sandboxPrivateKey(GASLESS_RELAYER),
      }),
      payments: h.stores.payments,
      ledger: h.stores.ledger,
      clock: h.clock,
      logger: capturingLogger().logger,
    };
    domain = (await readAuthorizationDomain(h.anvil.publicClient, h.usdc, h.anvil.chain.id))!;
  });
  afterEach(() => h.close());

  /** A customer who holds USDC and no POL at all, as most buyers from an exchange do. */
  const gaslessCustomer = async (baseUnits: bigint) => {
    const account = privateKeyToAccount(generatePrivateKey());
    const hash = await h.anvil.wallet(ROLES.relayer).writeContract({
      address: h.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [account.address, baseUnits],
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash });
    expect(await h.anvil.publicClient.getBalance({ address: account.address })).toBe(0n);
    return account;
  };
  const signedFor = async (payment: Payment, customer: ReturnType<typeof privateKeyToAccount>) => {
    const authorization: TransferAuthorization = {
      from: customer.address.toLowerCase(),
      to: payment.deposit!.depositAddress.toLowerCase(),
      valueBaseUnits: payment.quote.usdcBaseUnits,
      validAfter: 0n,
      validBefore: BigInt(payment.expiresAt.getTime() / 1000),
      nonce: toHex(randomBytes(32)),
    };
    const signature = await signAuthorization(customer, domain, authorization);
    return acceptAuthorization(accepting, {
      paymentId: payment.id,
      authorization,
      signature,
      clientAddress: '198.51.100.4',
    });
  };
  const relayerNonce = () =>
    h.anvil.publicClient.getTransactionCount({ address: h.anvil.addresses[GASLESS_RELAYER]! });
  /**
   * The pass that sends, then the pass that records the receipt — once anvil has mined the transaction (on a
   * loaded machine its answer to the broadcast can come before the block).
   */
  const relayAndMine = async (options?: RelayOptions) => {
    const sent = await relayOnce(relaying, options);
    if (sent.kind !== 'sent') throw new Error(`expected a transaction sent, not ${sent.kind}`);
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: sent.txHash as Hex });
    return { sent, mined: await relayOnce(relaying, options) };
  };

  it('a customer with USDC and no POL pays: relayed, mined, paid, and what it cost the relayer recorded', async () => {
    const payment = await h.createPayment('27');
    const customer = await gaslessCustomer(27_000_000n);
    const accepted = await signedFor(payment, customer);

    const { sent, mined } = await relayAndMine();
    expect(sent).toMatchObject({ kind: 'sent', id: accepted.id });
    expect(mined).toMatchObject({ kind: 'mined', id: accepted.id });
    if (mined.kind !== 'mined') throw new Error('not mined');
    expect(mined.feeWei).toBeGreaterThan(0n);
    const [stored] = await relaying.gasless.listForPayment(payment.id);
    const receipt = await h.anvil.publicClient.getTransactionReceipt({ hash: stored!.txHash as Hex });
    expect(stored).toMatchObject({ status: 'mined', gasUsed: receipt.gasUsed, feeWei: mined.feeWei });
    expect(mined.feeWei).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    expect(receipt.from.toLowerCase()).toBe(h.anvil.addresses[GASLESS_RELAYER]!.toLowerCase());

    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(27_000_000n);
    expect(await h.anvil.publicClient.getBalance({ address: customer.address })).toBe(0n);
    await h.finalizeAll();
    await h.poll();
    expect((await h.status(payment.id)).payment.status).toBe('paid');
    expect(await relayOnce(relaying)).toEqual({ kind: 'idle' });
  });

  it('holds authorizations while the hourly cap is spent, and sends them once the hour has passed', async () => {
    const first = await h.createPayment('27');
    await signedFor(first, await gaslessCustomer(27_000_000n));
    const { mined } = await relayAndMine();
    if (mined.kind !== 'mined') throw new Error('not mined');
    const second = await h.createPayment('27');
    const waiting = await signedFor(second, await gaslessCustomer(27_000_000n));
    const nonce = await relayerNonce();

    // Spent exactly the cap: nothing more this hour.
    const capped = await relayOnce(relaying, { maxFeeWeiPerHour: mined.feeWei });
    expect(capped).toEqual({ kind: 'capped', id: waiting.id, spentWei: mined.feeWei });
    expect(await relayerNonce()).toBe(nonce);
    expect(await relayOnce(relaying, { maxFeeWeiPerHour: mined.feeWei + 1n })).toMatchObject({
      kind: 'sent',
    });
  });

  it('shares the hourly cap: a flood from one payer does not starve another payer', async () => {
    const flooder = await gaslessCustomer(27_000_000n * 4n);
    const flood = [];
    for (let i = 0; i < 4; i++) {
      flood.push(await signedFor(await h.createPayment('27'), flooder));
      h.clock.advance(1_000);
    }
    const other = await signedFor(await h.createPayment('27'), await gaslessCustomer(27_000_000n));

    const { sent: first, mined } = await relayAndMine();
    expect(first.id).toBe(flood[0]!.id);
    if (mined.kind !== 'mined') throw new Error('not mined');
    // A cap of about six such relays an hour: the flooder's first one was its tenth of it.
    const options = { maxFeeWeiPerHour: mined.feeWei * 6n };
    const { sent: second } = await relayAndMine(options);
    expect(second.id).toBe(other.id);
    const nonce = await relayerNonce();
    const held = await relayOnce(relaying, options);
    expect(held).toMatchObject({ kind: 'share-spent', id: flood[1]!.id });
    if (held.kind !== 'share-spent') throw new Error('not held');
    expect(held.spentWei).toBeLessThan(options.maxFeeWeiPerHour);
    expect(await relayerNonce()).toBe(nonce);
    expect((await relaying.gasless.listForPayment(flood[1]!.paymentId))[0]).toMatchObject({
      status: 'pending',
    });
  });

  it('holds a payer once it has spent exactly its tenth of the cap, and not one wei before', async () => {
    const payer = await gaslessCustomer(27_000_000n * 2n);
    await signedFor(await h.createPayment('27'), payer);
    const { mined } = await relayAndMine();
    if (mined.kind !== 'mined') throw new Error('not mined');
    const second = await signedFor(await h.createPayment('27'), payer);
    const nonce = await relayerNonce();

    // A tenth of the cap, rounded down, is exactly what the payer spent: held.
    const held = await relayOnce(relaying, { maxFeeWeiPerHour: mined.feeWei * 10n + 9n });
    expect(held).toEqual({ kind: 'share-spent', id: second.id, spentWei: mined.feeWei });
    expect(await relayerNonce()).toBe(nonce);
    // One wei more in its share: sent.
    expect(await relayOnce(relaying, { maxFeeWeiPerHour: mined.feeWei * 10n + 10n })).toMatchObject({
      kind: 'sent',
      id: second.id,
    });
  });

  it('refuses a second authorization once the first is mined, before the watcher has seen its transfer', async () => {
    const payment = await h.createPayment('27');
    await signedFor(payment, await gaslessCustomer(27_000_000n));
    const { mined } = await relayAndMine();
    expect(mined.kind).toBe('mined');
    // The chain watcher has not polled: the ledger still shows nothing paid, but the relayer knows better.
    await expect(signedFor(payment, await gaslessCustomer(27_000_000n))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'Nothing is due on this payment any more',
    });
    expect(await relaying.gasless.listForPayment(payment.id)).toHaveLength(1);
  });

  it('fails, without spending gas, an authorization the payment no longer needs', async () => {
    const payment = await h.createPayment('27');
    const accepted = await signedFor(payment, await gaslessCustomer(27_000_000n));
    // Meanwhile the customer paid from another wallet, with gas.
    await h.pay(payment.deposit!.depositAddress, 27_000_000n);
    await h.poll();
    const nonce = await relayerNonce();
    expect(await relayOnce(relaying)).toEqual({
      kind: 'failed',
      id: accepted.id,
      reason: 'the payment no longer needs it (paid meanwhile)',
    });
    expect(await relayerNonce()).toBe(nonce);
    // The payment is free for another authorization again (none in flight).
    expect((await relaying.gasless.listForPayment(payment.id))[0]).toMatchObject({ status: 'failed' });
  });

  it('after a crash between persisting and broadcasting, sends the very same transaction, once', async () => {
    const payment = await h.createPayment('27');
    await signedFor(payment, await gaslessCustomer(27_000_000n));
    const crashing = {
      ...relaying,
      relayer: {
        ...relaying.relayer,
        broadcast: async () => {
          throw new Error('process killed before broadcasting');
        },
      },
    };
    await expect(relayOnce(crashing)).rejects.toThrow('process killed');
    const [persisted] = await relaying.gasless.listForPayment(payment.id);
    expect(persisted).toMatchObject({ status: 'sent' });
    expect(await relayOnce(relaying)).toEqual({ kind: 'awaiting-receipt', id: persisted!.id });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: persisted!.txHash as Hex });
    expect(await relayOnce(relaying)).toMatchObject({ kind: 'mined', id: persisted!.id });
    const [done] = await relaying.gasless.listForPayment(payment.id);
    expect(done!.txHash).toBe(persisted!.txHash);
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(27_000_000n);
  });

  it('paylink payments gasless shows an operator each signed transfer, its transaction and what its gas cost', async () => {
    const payment = await h.createPayment('27');
    await signedFor(payment, await gaslessCustomer(27_000_000n));
    const { mined } = await relayAndMine();
    if (mined.kind !== 'mined') throw new Error('not mined');
    const env = { PAYLINK_DATABASE_URL: h.database.url, PAYLINK_NETWORK: 'polygon' };
    const listed = await runCli(['payments', 'gasless', payment.id, '--json'], env);
    expect(listed.code).toBe(0);
    const { authorizations } = JSON.parse(listed.stdout) as { authorizations: Record<string, unknown>[] };
    const [stored] = await relaying.gasless.listForPayment(payment.id);
    expect(authorizations).toEqual([
      expect.objectContaining({
        id: stored!.id,
        status: 'mined',
        amount: '27.00',
        tx_hash: stored!.txHash,
        gas_used: stored!.gasUsed!.toString(),
        fee_pol: formatDecimal({ units: mined.feeWei, scale: 18 }),
      }),
    ]);
    const text = await runCli(['payments', 'gasless', payment.id], env);
    expect(text.stdout).toContain(`${stored!.id}  mined    27.00 USDC from`);
    const none = await runCli(['payments', 'gasless', '6f1c1f2e-8a4b-4c1e-9d3a-2b7e5f0a9c11'], env);
    expect(none.stdout).toContain('No signed transfer was submitted');
  });
});

describe.each(dialects)('the checkout’s gasless endpoints over HTTP on %s', (dialect) => {
  let h: ChainHarness;
  let app: FastifyInstance;
  let gasless: GaslessStore;
  let domain: AuthorizationDomain;
  const acceptingDeps = (chain: AuthorizationChain): AcceptAuthorizationDeps => ({
    payments: h.stores.payments,
    ledger: h.stores.ledger,
    gasless,
    chains: [chain],
    clock: h.clock,
    minValueBaseUnits: MIN_VALUE,
  });
  const checkoutFor = (domainFor: CheckoutGasless['domainFor']) => {
    const chain = authorizationChain(h.anvil.publicClient, h.anvil.chain.id, h.anvil.addresses[5]!);
    return buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger: capturingLogger().logger,
      network: { name: 'Sandbox', chainId: h.anvil.chain.id, explorerUrl: '' },
      gasless: {
        domainFor,
        accept: (input) => acceptAuthorization(acceptingDeps(chain), input),
        amountDue: (payment) => gaslessAmountDue(acceptingDeps(chain), payment),
        buckets: memoryBucketStore(),
      },
    });
  };
  beforeEach(async () => {
    h = await startChainHarness(dialect);
    gasless = gaslessRepository(h.database.handle);
    const chain = authorizationChain(h.anvil.publicClient, h.anvil.chain.id, h.anvil.addresses[5]!);
    app = await checkoutFor(async (chainId, token) =>
      chainId === chain.chainId ? chain.domainOf(token) : undefined,
    );
    domain = (await readAuthorizationDomain(h.anvil.publicClient, h.usdc, h.anvil.chain.id))!;
  });
  afterEach(async () => {
    await app.close();
    await h.close();
  });

  /** What the page posts: the terms of gasless.json, signed by the customer (or `signer`), as decimal strings. */
  const signedBody = async (
    payment: Payment,
    signer: number = ROLES.customer,
    value = payment.quote.usdcBaseUnits,
  ) => {
    const message = {
      from: h.addresses.customer,
      to: payment.deposit!.depositAddress as Address,
      value,
      validAfter: 0n,
      validBefore: BigInt(Math.ceil(payment.expiresAt.getTime() / 1000)),
      nonce: toHex(randomBytes(32)),
    };
    const signature = await h.anvil.wallet(signer).signTypedData({
      domain,
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    return {
      from: message.from,
      to: message.to,
      value: message.value.toString(),
      valid_after: '0',
      valid_before: message.validBefore.toString(),
      nonce: message.nonce,
      signature,
    };
  };
  const post = (id: string, payload: unknown, contentType = 'application/json') =>
    app.inject({
      method: 'POST',
      url: `/pay/${id}/authorization`,
      headers: { 'content-type': contentType },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const terms = (id: string) => app.inject({ method: 'GET', url: `/pay/${id}/gasless.json` });

  it('gasless.json gives the token’s domain, the deposit address and what is still due', async () => {
    const payment = await h.createPayment('27');
    const response = await terms(payment.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      types: TRANSFER_AUTHORIZATION_TYPES,
      primary_type: 'TransferWithAuthorization',
      domain: { ...domain },
      to: payment.deposit!.depositAddress,
      value: '27000000',
      valid_before: String(Math.ceil(payment.expiresAt.getTime() / 1000)),
    });
    expect(response.json().domain).toMatchObject({ chainId: h.anvil.chain.id, verifyingContract: h.usdc });

    await h.pay(payment.deposit!.depositAddress, 10_000_000n);
    await h.poll();
    expect((await terms(payment.id)).json()).toMatchObject({ value: '17000000' });
  });

  it('gasless.json is 409 GASLESS_UNAVAILABLE for a token without EIP-3009', async () => {
    const payment = await h.createPayment('27');
    const without = await checkoutFor(async () => undefined);
    try {
      const response = await without.inject({ method: 'GET', url: `/pay/${payment.id}/gasless.json` });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({
        error: 'Gasless payment is not offered for this token',
        code: 'GASLESS_UNAVAILABLE',
      });
    } finally {
      await without.close();
    }
  });

  it('a valid signed authorization is 202 and stored, pending', async () => {
    const payment = await h.createPayment('27');
    const response = await post(payment.id, await signedBody(payment));
    expect(response.statusCode).toBe(202);
    const answer = response.json();
    expect(answer).toEqual({ authorization_id: expect.stringMatching(/^gas_/), status: 'pending' });
    const stored = await gasless.listForPayment(payment.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      id: answer.authorization_id,
      status: 'pending',
      from: h.addresses.customer.toLowerCase(),
      valueBaseUnits: 27_000_000n,
      validAfter: 0n,
    });
  });

  it('refuses a malformed body, a missing or malformed field, and a forged signature with 400; text/plain with 415', async () => {
    const payment = await h.createPayment('27');
    const malformed = await post(payment.id, '{"from": "0x', 'application/json');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({
      error: 'body: is not valid JSON',
      code: 'VALIDATION_ERROR',
      field: 'body',
      details: [{ field: 'body', message: 'is not valid JSON' }],
    });

    // JSON that is not an object names every field, never a 500 (another payment: 5 per payment a minute).
    const fields = ['from', 'to', 'value', 'valid_after', 'valid_before', 'nonce', 'signature'];
    const another = await h.createPayment('27');
    for (const odd of ['null', '[]', '"x"'])
      expect((await post(another.id, odd)).json()).toEqual({
        error: `7 fields are invalid: ${fields.join(', ')}`,
        code: 'VALIDATION_ERROR',
        field: 'from',
        details: fields.map((field) => ({ field, message: 'missing or malformed' })),
      });

    const { nonce: _, ...withoutNonce } = await signedBody(payment);
    const missing = await post(payment.id, withoutNonce);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      error: 'nonce: missing or malformed',
      code: 'VALIDATION_ERROR',
      field: 'nonce',
      details: [{ field: 'nonce', message: 'missing or malformed' }],
    });
    // Two fields wrong: both named.
    const badValue = await post(payment.id, { ...(await signedBody(payment)), value: '27.00', to: '0x12' });
    expect(badValue.statusCode).toBe(400);
    expect(badValue.json()).toEqual({
      error: '2 fields are invalid: to, value',
      code: 'VALIDATION_ERROR',
      field: 'to',
      details: [
        { field: 'to', message: 'missing or malformed' },
        { field: 'value', message: 'missing or malformed' },
      ],
    });

    const forged = await post(payment.id, await signedBody(payment, ROLES.merchant));
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toEqual({
      error: 'The signature does not match the authorization: nothing was sent',
      code: 'VALIDATION_ERROR',
      field: 'signature',
      details: [
        { field: 'signature', message: 'The signature does not match the authorization: nothing was sent' },
      ],
    });

    const plain = await post(payment.id, JSON.stringify(await signedBody(payment)), 'text/plain');
    expect(plain.statusCode).toBe(415);
    expect(plain.json()).toEqual({ error: 'Send application/json', code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(await gasless.listForPayment(payment.id)).toEqual([]);
  });

  it('a 6th submission for the same payment within a minute is 429 with retry-after', async () => {
    const payment = await h.createPayment('27');
    const body = { ...(await signedBody(payment)), signature: `0x${'11'.repeat(65)}` };
    for (let i = 0; i < 5; i++) expect((await post(payment.id, body)).statusCode).toBe(400);
    const limited = await post(payment.id, body);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
    // Another payment from the same client is not held back by this one's limit.
    const other = await h.createPayment('27');
    expect((await post(other.id, await signedBody(other))).statusCode).toBe(202);
  });

  it('refuses dust with 400 saying the amount to sign, and offers no signature for a remainder below the minimum', async () => {
    const payment = await h.createPayment('27');
    const dust = await post(payment.id, await signedBody(payment, ROLES.customer, 1n));
    expect(dust.statusCode).toBe(400);
    const says =
      'The authorization transfers less than is due on this payment: sign a transfer of exactly 27.00 USDC';
    expect(dust.json()).toEqual({
      error: says,
      code: 'VALIDATION_ERROR',
      field: 'value',
      details: [{ field: 'value', message: says }],
    });

    await h.pay(payment.deposit!.depositAddress, 27_000_000n - MIN_VALUE + 1n);
    await h.poll();
    const below = {
      error:
        'The 0.499999 USDC still due is below 0.50 USDC, the least a signed transfer may carry: send it from your wallet',
      code: 'GASLESS_UNAVAILABLE',
    };
    const offered = await terms(payment.id);
    expect(offered.statusCode).toBe(409);
    expect(offered.json()).toEqual(below);
    const remainder = await post(payment.id, await signedBody(payment, ROLES.customer, MIN_VALUE - 1n));
    expect(remainder.statusCode).toBe(409);
    expect(remainder.json()).toEqual(below);
    expect(await gasless.listForPayment(payment.id)).toEqual([]);
  });

  it('an unknown or malformed payment id is 404 NOT_FOUND, for both endpoints', async () => {
    const payment = await h.createPayment('27');
    const body = await signedBody(payment);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-payment']) {
      for (const response of [await terms(id), await post(id, body)]) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ error: 'Payment not found', code: 'NOT_FOUND' });
      }
    }
  });
});

/**
 * Redis is a real part, like PostgreSQL: these run when PAYLINK_TEST_REDIS_URL names a server (CI sets it), as
 * the API's shared rate-limit tests do.
 */
const REDIS_URL = process.env.PAYLINK_TEST_REDIS_URL;
if (!REDIS_URL && process.env.CI)
  throw new Error('CI must set PAYLINK_TEST_REDIS_URL: the Redis tests may not be skipped');

describe.runIf(REDIS_URL).each(dialects)(
  'the gasless limits shared by two API processes on %s',
  (dialect) => {
    // A unique prefix per run: the tests write and delete only their own keys on a shared Redis.
    const prefix = `paylink-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
    let h: ChainHarness;
    let apps: FastifyInstance[] = [];
    let stores: RateLimitStore[] = [];
    beforeEach(async () => {
      h = await startChainHarness(dialect);
      // Two API processes as `serve` wires them from the same configuration: each its own buckets' connection.
      const config = loadConfig({
        PAYLINK_DATABASE_URL: h.database.url,
        PAYLINK_NETWORK: 'sandbox',
        PAYLINK_REDIS_URL: REDIS_URL as string,
      });
      const gasless = gaslessRepository(h.database.handle);
      const chain = authorizationChain(h.anvil.publicClient, h.anvil.chain.id, h.anvil.addresses[5]!);
      const deps: AcceptAuthorizationDeps = {
        payments: h.stores.payments,
        ledger: h.stores.ledger,
        gasless,
        chains: [chain],
        clock: h.clock,
        minValueBaseUnits: MIN_VALUE,
      };
      for (let i = 0; i < 2; i++) {
        const buckets = rateLimitBuckets(config, pino({ level: 'silent' }), prefix);
        stores.push(buckets);
        // The store fails open while it connects: the test starts once it has (a memory store has nothing to wait for).
        const { redis } = buckets as { redis?: Redis };
        if (redis && redis.status !== 'ready') await once(redis, 'ready');
        apps.push(
          await buildCheckoutServer({
            ...h.stores,
            clock: h.clock,
            logger: capturingLogger().logger,
            network: { name: 'Sandbox', chainId: h.anvil.chain.id, explorerUrl: '' },
            gasless: {
              domainFor: (_, token) => chain.domainOf(token),
              accept: (input) => acceptAuthorization(deps, input),
              amountDue: (payment) => gaslessAmountDue(deps, payment),
              buckets,
            },
          }),
        );
      }
    });
    afterEach(async () => {
      await Promise.all(apps.map((app) => app.close()));
      const cleaner = new Redis(REDIS_URL as string);
      const keys = await cleaner.keys(`${prefix}*`);
      if (keys.length > 0) await cleaner.del(...keys);
      await cleaner.quit();
      await Promise.all(stores.map((store) => store.close()));
      apps = [];
      stores = [];
      await h.close();
    });

    /** A well-formed authorization with a signature that recovers to nobody: refused (400) after the limits. */
    const forgedBody = (payment: Payment) => ({
      from: h.addresses.customer,
      to: payment.deposit!.depositAddress,
      value: payment.quote.usdcBaseUnits.toString(),
      valid_after: '0',
      valid_before: String(Math.ceil(payment.expiresAt.getTime() / 1000)),
      nonce: toHex(randomBytes(32)),
      signature: `0x${'11'.repeat(65)}`,
    });
    const post = (app: FastifyInstance, payment: Payment, remoteAddress: string) =>
      app.inject({
        method: 'POST',
        url: `/pay/${payment.id}/authorization`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(forgedBody(payment)),
        remoteAddress,
      });
    // A client address of this run's own: buckets of other runs on the same Redis never meet it.
    const clientAddress = () =>
      `2001:db8:${randomBytes(2).toString('hex')}::${randomBytes(2).toString('hex')}`;

    it('counts a payment’s submissions in one bucket, whichever process takes them', async () => {
      const payment = await h.createPayment('27');
      const [first, second] = apps as [FastifyInstance, FastifyInstance];
      for (const app of [first, second, first, second, first])
        expect((await post(app, payment, clientAddress())).statusCode).toBe(400);
      for (const app of [second, first]) {
        const limited = await post(app, payment, clientAddress());
        expect(limited.statusCode).toBe(429);
        expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
      }
    });

    it('counts a client’s submissions in one bucket, whichever process takes them', async () => {
      const client = clientAddress();
      const [first, second] = apps as [FastifyInstance, FastifyInstance];
      // Five payments, two submissions each (under the 5 per payment), from one client: its 10 a minute, shared.
      for (let i = 0; i < 5; i++) {
        const payment = await h.createPayment('27');
        expect((await post(first, payment, client)).statusCode).toBe(400);
        expect((await post(second, payment, client)).statusCode).toBe(400);
      }
      const payment = await h.createPayment('27');
      for (const app of [first, second]) {
        const limited = await post(app, payment, client);
        expect(limited.statusCode).toBe(429);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      }
      // Another client is not held back by this one's bucket.
      expect((await post(second, payment, clientAddress())).statusCode).toBe(400);
    });
  },
);
