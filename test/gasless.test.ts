/**
 * Gasless payment, the accepting half: a customer's signed EIP-3009 authorization is taken for a payment only
 * when the relayer could not spend gas on it for nothing — on anvil with the USDC stand-in, on each database.
 */
import { randomBytes } from 'node:crypto';
import { type Address, type Hex, toHex } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testUsdcAbi } from '../src/adapters/chain/contractAbis.ts';
import {
  authorizationChain,
  readAuthorizationDomain,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  transferWithAuthorizationCall,
} from '../src/adapters/chain/eip3009.ts';
import { gaslessRepository } from '../src/adapters/db/gaslessRepository.ts';
import { type AcceptAuthorizationDeps, acceptAuthorization } from '../src/app/gasless/acceptAuthorization.ts';
import type { Payment } from '../src/domain/payment.ts';
import type { AuthorizationDomain, TransferAuthorization } from '../src/domain/transferAuthorization.ts';
import { type ChainHarness, PAYMENT_TTL_MS, ROLES, startChainHarness } from './helpers/chainHarness.ts';
import { dialects } from './helpers/database.ts';

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
    h.anvil.wallet(signer).signTypedData({
      domain,
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: auth.from as Address,
        to: auth.to as Address,
        value: auth.valueBaseUnits,
        validAfter: auth.validAfter,
        validBefore: auth.validBefore,
        nonce: auth.nonce as Hex,
      },
    });
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
      message: 'The authorization transfers more than is due on this payment',
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
    const payment = await h.createPayment('27');
    const replayed = authorizationFor(payment, { valueBaseUnits: 1_000_000n });
    const signature = await sign(replayed);
    const hash = await h.anvil.wallet(ROLES.relayer).sendTransaction({
      to: h.usdc,
      data: transferWithAuthorizationCall(replayed, signature),
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash });
    await h.poll();
    await expect(accept(payment, replayed, signature)).rejects.toMatchObject({ code: 'AUTHORIZATION_USED' });

    await h.control('pause');
    await expect(
      accept(payment, authorizationFor(payment, { valueBaseUnits: 1_000_000n })),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The token would refuse this transfer: Pausable: paused',
    });
    await h.control('unpause');

    h.clock.advance(PAYMENT_TTL_MS + 1_000);
    await expect(
      accept(payment, authorizationFor(payment, { valueBaseUnits: 1_000_000n })),
    ).rejects.toMatchObject({ code: 'PAYMENT_EXPIRED', status: 409 });
    expect(await stored(payment)).toEqual([]);
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
