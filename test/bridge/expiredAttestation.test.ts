/**
 * A fast attestation carries an expiration block on the destination chain: once Polygon's mint is late past it,
 * Circle's TokenMessengerV2 refuses the message ("Message expired and must be re-signed"), and Circle re-signs
 * it at finalized level on `POST /v2/reattest/{nonce}` (decision 0036). On real anvil nodes ("Polygon" 137,
 * "Base" 8453) with the project's CCTP test contracts, the local attestation service standing in for Iris, and
 * the ledger in a real database: the contract's comparison on both sides of the block, the service's endpoint,
 * and the bridge re-attesting an expired message and minting it exactly once.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Address, type Hex, keccak256, parseEventLogs, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AttestationApiError, createAttestationClient } from '../../src/adapters/cctp/attestationClient.ts';
import {
  decodeBurnMessageV2,
  decodeMessageV2,
  encodeBurnMessageV2,
  encodeMessageV2,
  FINALITY_FAST,
  FINALITY_STANDARD,
} from '../../src/adapters/cctp/cctpMessage.ts';
import {
  forwarderFactoryV3Abi,
  testMessageTransmitterV2Abi,
  testUsdcAbi,
} from '../../src/adapters/chain/contractAbis.ts';
import { predictDepositAddress, toForwarderStruct } from '../../src/adapters/chain/forwarder.ts';
import { bridgeRepository } from '../../src/adapters/db/bridgeRepository.ts';
import { ledgerRepository } from '../../src/adapters/db/ledgerRepository.ts';
import { merchantRow } from '../../src/adapters/db/merchantRepository.ts';
import { attestOnce } from '../../src/app/bridge/attestStep.ts';
import { burnOnce } from '../../src/app/bridge/burnStep.ts';
import { listCrossChain } from '../../src/app/bridge/listCrossChain.ts';
import type { SourceBridgeOptions } from '../../src/app/bridge/options.ts';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import { settleWithMintsOnce } from '../../src/app/settlement/settleWithMints.ts';
import type { Payment } from '../../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY } from '../../src/domain/payout.ts';
import { testMerchant } from '../fakes/merchantFixture.ts';
import {
  bridgeWorker,
  customerPays,
  depositBalancesOf,
  mined,
  mintAndFlush,
  usdcOf,
} from '../helpers/bridgeWorker.ts';
import { type CctpChain, type CctpChains, CIRCLE, RELAYER, startCctpChains } from '../helpers/cctpChains.ts';
import { TestClock } from '../helpers/clock.ts';
import { HOME_SETTLE_OPTIONS, insertCrossChainPayment } from '../helpers/crossChainScene.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';

const FAST_FEE_BPS = 1;
const MAX_FEE_BPS = 10;
const COMMISSION_BPS = 100;
const CONFIRMATIONS = { fast: 1, standard: 3 };
/** A fast message is valid for this many Polygon blocks after it is signed. */
const EXPIRY_BLOCKS = 5;
const CUSTOMER = 3;
const AMOUNT = 10_000_000n;
/** Circle's minimum for 1 bp of 10 USDC. */
const FEE = 1_000n;

let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: 7 },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: MAX_FEE_BPS },
    ],
    { confirmations: CONFIRMATIONS, fastFeeBps: FAST_FEE_BPS, fastExpiryBlocks: EXPIRY_BLOCKS },
  );
  polygon = net.chain('polygon');
  base = net.chain('base');
});
afterAll(async () => {
  await net?.stop();
});

const factory = () => net.factories.polygon!.factory;
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

/** A forwarder's money burnt on Base by the relayer (fast), mined: the `MessageSent` bytes it emitted. */
async function fastBurnOnBase(amount: bigint): Promise<{ txHash: Hex; message: Hex; recipient: Address }> {
  const params = {
    merchant: randomAddress(),
    treasury: randomAddress(),
    feeBps: COMMISSION_BPS,
    paymentId: randomUUID(),
  };
  const recipient = predictDepositAddress({
    factory: factory(),
    implementation: net.factories.polygon!.implementation,
    params,
    version: 3,
  });
  await mined(
    base,
    await base.anvil.wallet(CIRCLE).writeContract({
      address: base.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [recipient, amount],
    }),
  );
  const txHash = await base.anvil.wallet(RELAYER).writeContract({
    address: factory(),
    abi: forwarderFactoryV3Abi,
    functionName: 'deployAndBurn',
    args: [toForwarderStruct(params), amount, (AMOUNT * BigInt(MAX_FEE_BPS)) / 10_000n, FINALITY_FAST],
  });
  const receipt = await mined(base, txHash);
  const [sent] = parseEventLogs({
    abi: testMessageTransmitterV2Abi,
    eventName: 'MessageSent',
    logs: receipt.logs,
  });
  return { txHash, message: sent!.args.message, recipient };
}

describe('the expiration block, as Circle’s TokenMessengerV2 checks it', () => {
  /** The emitted message as the attesters would sign it, with the given terms and a nonce of its own. */
  async function signed(emitted: Hex, terms: { executed: number; expirationBlock: bigint }) {
    const header = decodeMessageV2(emitted);
    const body = decodeBurnMessageV2(header.messageBody);
    const message = encodeMessageV2({
      ...header,
      nonce: keccak256(toHex(randomUUID())),
      finalityThresholdExecuted: terms.executed,
      messageBody: encodeBurnMessageV2({ ...body, feeExecuted: FEE, expirationBlock: terms.expirationBlock }),
    });
    const signers = net.attesterKeys
      .map((key) => ({ key, address: privateKeyToAccount(key).address }))
      .sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
    const signatures = await Promise.all(
      signers.map(({ key }) => sign({ hash: keccak256(message), privateKey: key, to: 'hex' })),
    );
    return { message, attestation: `0x${signatures.map((s) => s.slice(2)).join('')}` as Hex };
  }

  /** `receiveMessage` sent as is (no estimate: it may revert), mined in the block after the head. */
  async function receiveInNextBlock(pair: { message: Hex; attestation: Hex }) {
    const hash = await polygon.anvil.wallet(RELAYER).writeContract({
      address: polygon.cctp.messageTransmitter,
      abi: testMessageTransmitterV2Abi,
      functionName: 'receiveMessage',
      args: [pair.message, pair.attestation],
      gas: 1_000_000n,
    });
    return polygon.anvil.publicClient.waitForTransactionReceipt({ hash });
  }

  /** Why the mined transaction reverted, replayed by the node's call tracer. */
  async function revertReasonOf(hash: Hex): Promise<string | undefined> {
    const trace = (await polygon.anvil.publicClient.request({
      method: 'debug_traceTransaction' as 'eth_chainId',
      params: [hash, { tracer: 'callTracer' }] as never,
    })) as unknown as { revertReason?: string; error?: string };
    return trace.revertReason;
  }

  const head = () => polygon.anvil.publicClient.getBlockNumber({ cacheTime: 0 });

  it.each([
    ['fast (1000)', FINALITY_FAST],
    ['finalized (2000)', FINALITY_STANDARD],
  ])(
    'a %s message mints in the block before its expiration block, and is refused in that very block',
    async (_, executed) => {
      const burnt = await fastBurnOnBase(AMOUNT);
      // Mined in head + 1, which is the expiration block: refused, nothing minted, the nonce still unused.
      const atExpiry = await signed(burnt.message, { executed, expirationBlock: (await head()) + 1n });
      const refused = await receiveInNextBlock(atExpiry);
      expect(refused.status).toBe('reverted');
      expect(refused.blockNumber).toBe(
        decodeBurnMessageV2(decodeMessageV2(atExpiry.message).messageBody).expirationBlock,
      );
      expect(await revertReasonOf(refused.transactionHash)).toBe('Message expired and must be re-signed');
      expect(await usdcOf(polygon, burnt.recipient)).toBe(0n);

      // Mined in head + 1, one block before its expiration block: minted, less the fee.
      const beforeExpiry = await signed(burnt.message, { executed, expirationBlock: (await head()) + 2n });
      const minted = await receiveInNextBlock(beforeExpiry);
      expect(minted.status).toBe('success');
      expect(await usdcOf(polygon, burnt.recipient)).toBe(AMOUNT - FEE);
    },
  );

  it('an expiration block of 0 never expires', async () => {
    const burnt = await fastBurnOnBase(AMOUNT);
    const never = await signed(burnt.message, { executed: FINALITY_FAST, expirationBlock: 0n });
    await polygon.anvil.testClient.mine({ blocks: 50 });
    expect((await receiveInNextBlock(never)).status).toBe('success');
    expect(await usdcOf(polygon, burnt.recipient)).toBe(AMOUNT - FEE);
  });
});

describe('the local attestation service: expiry and POST /v2/reattest/{nonce}, in Iris’s format', () => {
  const client = () => createAttestationClient({ baseUrl: net.attestation.url, timeoutMs: 5_000 });
  const post = async (path: string) => {
    const response = await fetch(`${net.attestation.url}${path}`, { method: 'POST' });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const fixture = JSON.parse(
    readFileSync(new URL('../fixtures/cctp/reattest.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>;

  /** Iris's one message for the burn, once complete. */
  async function completeMessage(txHash: Hex) {
    const found = await client().messagesOf(base.domain, txHash);
    if (found.state !== 'found' || found.messages[0]?.status !== 'complete') throw new Error('not complete');
    return found.messages[0];
  }

  it('a fast message expires a window of Polygon blocks after it is signed, and is answered the same each time', async () => {
    const burnt = await fastBurnOnBase(AMOUNT);
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.fast });
    const polygonAtSigning = await polygon.anvil.publicClient.getBlockNumber({ cacheTime: 0 });
    const first = await completeMessage(burnt.txHash);
    expect(first.decoded.finalityThresholdExecuted).toBe(FINALITY_FAST);
    expect(first.burn).toMatchObject({
      feeExecuted: FEE,
      expirationBlock: polygonAtSigning + BigInt(EXPIRY_BLOCKS),
    });
    // Polygon moves on; the signed message does not.
    await polygon.anvil.testClient.mine({ blocks: 3 });
    expect((await completeMessage(burnt.txHash)).message).toBe(first.message);
  });

  it('re-attests a fast message at finalized level, same nonce and fee, no expiry, once the burn is final', async () => {
    const burnt = await fastBurnOnBase(AMOUNT);
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.fast });
    const fast = await completeMessage(burnt.txHash);
    const nonce = fast.decoded.nonce;

    const accepted = await post(`/v2/reattest/${nonce}`);
    expect(accepted.status).toBe(200);
    expect(Object.keys(accepted.body as object).sort()).toEqual(Object.keys(fixture).sort());
    expect(accepted.body).toEqual({ message: fixture.message, nonce });
    // Asked again before it is signed: the same answer.
    expect((await client().reattest(nonce)).state).toBe('requested');
    // Not final on Base yet: still the fast message.
    expect((await completeMessage(burnt.txHash)).message).toBe(fast.message);

    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.standard });
    const finalized = await completeMessage(burnt.txHash);
    expect(finalized.message).not.toBe(fast.message);
    expect(finalized.decoded).toEqual({
      ...fast.decoded,
      finalityThresholdExecuted: FINALITY_STANDARD,
      messageBody: finalized.decoded.messageBody,
    });
    expect(finalized.burn).toEqual({ ...fast.burn, expirationBlock: 0n });
    // Found by its nonce too; and a finalized message has nothing left to re-attest.
    const byNonce = await fetch(`${net.attestation.url}/v2/messages/${base.domain}?nonce=${nonce}`);
    expect(((await byNonce.json()) as { messages: { message: Hex }[] }).messages[0]!.message).toBe(
      finalized.message,
    );
    expect(await post(`/v2/reattest/${nonce}`)).toEqual({
      status: 400,
      body: { code: 400, message: 'Bad request.' },
    });
  });

  it('400 for what is not a v2 nonce or not a fast message, 404 for a nonce never seen, 429 when rate limiting', async () => {
    const badRequest = { status: 400, body: { code: 400, message: 'Bad request.' } };
    const notFound = { status: 404, body: { code: 404, message: 'Not found.' } };
    expect(await post('/v2/reattest/9682')).toEqual(badRequest);
    expect(await post('/v2/reattest/0x12')).toEqual(badRequest);
    expect(await post(`/v2/reattest/0x${'ab'.repeat(32)}`)).toEqual(notFound);
    expect(await client().reattest(`0x${'ab'.repeat(32)}`)).toEqual({ state: 'not_found' });

    // A standard transfer is attested at finalized level already.
    const params = {
      merchant: randomAddress(),
      treasury: randomAddress(),
      feeBps: COMMISSION_BPS,
      paymentId: randomUUID(),
    };
    const recipient = predictDepositAddress({
      factory: factory(),
      implementation: net.factories.polygon!.implementation,
      params,
      version: 3,
    });
    await mined(
      base,
      await base.anvil.wallet(CIRCLE).writeContract({
        address: base.cctp.usdc,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [recipient, AMOUNT],
      }),
    );
    const standardTx = await base.anvil.wallet(RELAYER).writeContract({
      address: factory(),
      abi: forwarderFactoryV3Abi,
      functionName: 'deployAndBurn',
      args: [toForwarderStruct(params), AMOUNT, 0n, FINALITY_STANDARD],
    });
    await mined(base, standardTx);
    // Seen, not signed yet: nothing attested to re-attest.
    const pending = await client().messagesOf(base.domain, standardTx);
    const pendingNonce =
      pending.state === 'found' && pending.messages[0]?.status === 'pending'
        ? pending.messages[0].eventNonce
        : undefined;
    expect(pendingNonce).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await post(`/v2/reattest/${pendingNonce}`)).toEqual(badRequest);
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.standard });
    const standard = await completeMessage(standardTx);
    expect(standard.burn?.expirationBlock).toBe(0n);
    expect(await client().reattest(standard.decoded.nonce)).toEqual({ state: 'bad_request' });

    net.attestation.setFault('rate_limited');
    try {
      await expect(client().reattest(standard.decoded.nonce)).rejects.toSatisfy(
        (error: unknown) => error instanceof AttestationApiError && error.kind === 'rate_limited',
      );
    } finally {
      net.attestation.setFault('none');
    }
  });
});

describe.each(dialects)('a fast attestation that expires before its mint, on %s', (dialect) => {
  let database: TestDatabase;
  let clock: TestClock;
  let paymentNumber = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await database.handle.db
      .insertInto('merchants')
      .values(merchantRow(testMerchant({ commissionBps: COMMISSION_BPS })))
      .execute();
  });
  afterAll(() => database?.drop());
  afterEach(async () => {
    // The home relayer's gas back, whatever the test did with it.
    await polygon.anvil.testClient.setBalance({ address: relayerAddress(), value: 10n ** 22n });
    await polygon.anvil.testClient.setAutomine(true);
  });

  const relayerAddress = () => polygon.anvil.wallet(RELAYER).account.address;
  const worker = () =>
    bridgeWorker({
      handle: database.handle,
      clock,
      home: polygon,
      source: base,
      attestationUrl: net.attestation.url,
    });
  const sourceOptions: () => SourceBridgeOptions = () => ({
    homeChainId: polygon.chainId,
    tokenAddress: base.cctp.usdc,
    speed: 'fast',
    maxFeeBps: MAX_FEE_BPS,
    // Since decision 0037 (the fast burn's depth): a transfer one block deep may be burnt fast.
    fastConfirmations: 1,
    dustThresholdBaseUnits: DEFAULT_PAYOUT_POLICY.dustThresholdBaseUnits,
    relayerLowBalanceWei: 10n ** 18n,
    attestationPollMs: 2_000,
    attestationExpectedMs: 60_000,
  });
  const settleOptions = HOME_SETTLE_OPTIONS;

  /** A payment of 10 USDC paid on Base (final there), burnt fast and attested: waiting for its mint. */
  async function attestedFastPayment(): Promise<Payment> {
    const payment = await insertCrossChainPayment({
      handle: database.handle,
      net,
      home: polygon,
      number: ++paymentNumber,
      now: clock.now(),
      commissionBps: COMMISSION_BPS,
    });
    const { id } = payment;
    const { depositAddress } = payment.deposit!;
    const paid = await customerPays(base, CUSTOMER, depositAddress, AMOUNT);
    const block = await base.anvil.publicClient.getBlock({ blockNumber: paid.blockNumber });
    await ledgerRepository(database.handle).transaction(async (tx) => {
      await tx.insertTransfers([
        {
          id: `${base.chainId}:${paid.blockHash}:0`,
          chainId: base.chainId,
          paymentId: id,
          txHash: paid.transactionHash,
          logIndex: 0,
          blockNumber: paid.blockNumber,
          blockHash: paid.blockHash,
          blockTimestamp: new Date(Number(block.timestamp) * 1000),
          tokenAddress: base.cctp.usdc.toLowerCase(),
          tokenSymbol: 'USDC',
          fromAddress: paid.from.toLowerCase(),
          toAddress: depositAddress.toLowerCase(),
          amountBaseUnits: AMOUNT,
          final: true,
          orphaned: false,
        },
      ]);
      await refreshPayments(tx, [id], clock.now());
    });
    const first = worker();
    const sent = await burnOnce(first.source, sourceOptions());
    if (sent.kind !== 'sent') throw new Error(`expected a burn sent, got ${sent.kind}`);
    await mined(base, sent.txHash as Hex);
    expect((await burnOnce(first.source, sourceOptions())).kind).toBe('burnt');
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.fast });
    clock.advance(10_000);
    expect((await attestOnce(first.source, sourceOptions())).attested).toHaveLength(1);
    return payment;
  }

  async function transferOf(paymentId: string) {
    const [row] = await database.handle.db
      .selectFrom('bridge_transfers')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .execute();
    return row!;
  }

  async function payoutHold(paymentId: string) {
    return database.handle.db
      .selectFrom('payments')
      .select(['payout_blocked_since', 'payout_blocked_reason'])
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
  }

  /** The attest step's passes (a fresh worker each) until the re-signed message is recorded, Base mining. */
  async function reattested(paymentId: string): Promise<void> {
    const first = await attestOnce(worker().source, sourceOptions());
    expect(first).toEqual({ attested: [], waiting: [(await transferOf(paymentId)).id] });
    const asked = await transferOf(paymentId);
    expect(asked).toMatchObject({
      step: 'attest',
      last_error: expect.stringMatching(/re-attestation requested/),
    });
    expect(asked.reattest_requested_at).not.toBeNull();
    // Circle signs it at finalized level only once the burn is final on Base.
    clock.advance(60_000);
    expect((await attestOnce(worker().source, sourceOptions())).waiting).toHaveLength(1);
    expect((await transferOf(paymentId)).last_error).toMatch(/not signed yet/);
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.standard });
    clock.advance(60_000);
    expect((await attestOnce(worker().source, sourceOptions())).attested).toHaveLength(1);
  }

  /** Minted exactly once, the re-signed message; merchant and treasury hold exactly their shares on Polygon. */
  async function expectMintedOnceAndSettled(payment: Payment, expiredMessage: string): Promise<void> {
    const row = await transferOf(payment.id);
    expect(row).toMatchObject({ step: 'done', expired_at: null, reattest_requested_at: null });
    const minted = decodeMessageV2(row.attested_message as Hex);
    expect(row.attested_message).not.toBe(expiredMessage);
    expect(minted.nonce).toBe(decodeMessageV2(expiredMessage as Hex).nonce);
    expect(minted.finalityThresholdExecuted).toBe(FINALITY_STANDARD);
    expect(decodeBurnMessageV2(minted.messageBody)).toMatchObject({ feeExecuted: FEE, expirationBlock: 0n });
    const received = await polygon.anvil.publicClient.getContractEvents({
      address: polygon.cctp.messageTransmitter,
      abi: testMessageTransmitterV2Abi,
      eventName: 'MessageReceived',
      args: { nonce: minted.nonce },
      fromBlock: 0n,
      strict: true,
    });
    expect(received).toHaveLength(1);
    const arrived = AMOUNT - FEE;
    const treasuryShare = (arrived * BigInt(COMMISSION_BPS)) / 10_000n;
    expect(await usdcOf(polygon, payment.payoutAddress)).toBe(arrived - treasuryShare);
    expect(await usdcOf(polygon, payment.deposit!.treasuryAddress)).toBe(treasuryShare);
    expect(await usdcOf(polygon, payment.deposit!.depositAddress)).toBe(0n);
    expect(await depositBalancesOf(database.handle, payment.id)).toEqual([
      [polygon.chainId, '0', arrived.toString(), arrived.toString()],
      [base.chainId, AMOUNT.toString(), '0', AMOUNT.toString()],
    ]);
    expect((await payoutHold(payment.id)).payout_blocked_since).toBeNull();
    // The fee Circle reserved is taken once and counted as settled; nothing is held back any more.
    expect(
      await database.handle.db
        .selectFrom('payments')
        .select(['settled_base_units', 'bridge_fee_base_units', 'bridge_fee_bound_base_units'])
        .where('id', '=', payment.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({
      settled_base_units: AMOUNT.toString(),
      bridge_fee_base_units: FEE.toString(),
      bridge_fee_bound_base_units: '0',
    });
  }

  it('the home relayer out of gas past the expiry: re-attested, minted once, each share exact on Polygon', async () => {
    clock = new TestClock();
    const payment = await attestedFastPayment();
    const expiredMessage = (await transferOf(payment.id)).attested_message as string;
    const expirationBlock = decodeBurnMessageV2(
      decodeMessageV2(expiredMessage as Hex).messageBody,
    ).expirationBlock;

    // No gas on Polygon: the mint is held up (a stall), while Polygon reaches the expiration block.
    await polygon.anvil.testClient.setBalance({ address: relayerAddress(), value: 0n });
    expect((await settleWithMintsOnce(worker().settle, worker().home, settleOptions)).mint).toMatchObject({
      kind: 'setback',
      reason: expect.stringMatching(/lacks gas for the mint/),
    });
    const head = await polygon.anvil.publicClient.getBlockNumber({ cacheTime: 0 });
    await polygon.anvil.testClient.mine({ blocks: Number(expirationBlock - head) - 1 });
    await polygon.anvil.testClient.setBalance({ address: relayerAddress(), value: 10n ** 22n });
    clock.advance(60 * 60_000);

    // The mint would be mined in the expiration block itself: not sent, sent back for re-attestation.
    const pass = await settleWithMintsOnce(worker().settle, worker().home, settleOptions);
    expect(pass.mint).toEqual({
      kind: 'expired',
      transferId: (await transferOf(payment.id)).id,
      expirationBlock,
    });
    const expired = await transferOf(payment.id);
    expect(expired).toMatchObject({ step: 'attest', mint_tx_hash: null, reattest_requested_at: null });
    expect(expired.last_error).toMatch(new RegExp(`expired at block ${expirationBlock} of chain 137`));
    // Reported like any bridge stall: the payout held up, and the console says why.
    expect((await payoutHold(payment.id)).payout_blocked_reason).toMatch(
      /^cross-chain transfer: the attested message expired/,
    );
    // Held up since the mint first failed, an hour ago: the merchant has been told its payout is delayed.
    const delayed = await database.handle.db
      .selectFrom('events')
      .select('type')
      .where('payment_id', '=', payment.id)
      .where('type', '=', 'payment.payout_delayed')
      .execute();
    expect(delayed).toHaveLength(1);
    const [view] = await listCrossChain({ bridge: bridgeRepository(database.handle) }, 10);
    expect(view).toMatchObject({
      payment_id: payment.id,
      step: 'attest',
      expired_at: expect.any(String),
      reattest_requested_at: null,
    });
    expect(await usdcOf(polygon, payment.deposit!.depositAddress)).toBe(0n);

    await reattested(payment.id);
    await mintAndFlush(worker(), polygon, settleOptions);
    await expectMintedOnceAndSettled(payment, expiredMessage);
  });

  it('a mint sent in time but mined past the expiry reverts: recognised after, re-attested, minted once', async () => {
    clock = new TestClock();
    const payment = await attestedFastPayment();
    const expiredMessage = (await transferOf(payment.id)).attested_message as string;
    const expirationBlock = decodeBurnMessageV2(
      decodeMessageV2(expiredMessage as Hex).messageBody,
    ).expirationBlock;

    // Sent while it could still be mined in time, then held back by the node until Polygon passed the expiry.
    await polygon.anvil.testClient.setAutomine(false);
    const sent = await settleWithMintsOnce(worker().settle, worker().home, settleOptions);
    expect(sent.mint?.kind).toBe('in-flight');
    const mintHash = (sent.mint as { txHash: Hex }).txHash;
    await polygon.anvil.testClient.dropTransaction({ hash: mintHash });
    const head = await polygon.anvil.publicClient.getBlockNumber({ cacheTime: 0 });
    await polygon.anvil.testClient.mine({ blocks: Number(expirationBlock - head) });
    await polygon.anvil.testClient.setAutomine(true);
    // Our very transaction broadcast again: mined now, at or past the expiration block, it reverts.
    expect((await settleWithMintsOnce(worker().settle, worker().home, settleOptions)).mint.kind).toBe(
      'in-flight',
    );
    const receipt = await polygon.anvil.publicClient.waitForTransactionReceipt({ hash: mintHash });
    expect(receipt.status).toBe('reverted');
    expect(receipt.blockNumber).toBeGreaterThanOrEqual(expirationBlock);

    const after = await settleWithMintsOnce(worker().settle, worker().home, settleOptions);
    expect(after.mint).toMatchObject({ kind: 'expired', expirationBlock });
    expect(await transferOf(payment.id)).toMatchObject({ step: 'attest', mint_tx_hash: null });

    await reattested(payment.id);
    await mintAndFlush(worker(), polygon, settleOptions);
    await expectMintedOnceAndSettled(payment, expiredMessage);
    // The reverted mint stays the only other one: no second mint was sent for the expired message.
    expect((await transferOf(payment.id)).mint_tx_hash).not.toBe(mintHash.toLowerCase());
  });

  it('a mint that can still be mined one block before the expiration block is sent as is, and mints', async () => {
    clock = new TestClock();
    const payment = await attestedFastPayment();
    const message = (await transferOf(payment.id)).attested_message as string;
    const expirationBlock = decodeBurnMessageV2(decodeMessageV2(message as Hex).messageBody).expirationBlock;
    const head = await polygon.anvil.publicClient.getBlockNumber({ cacheTime: 0 });
    await polygon.anvil.testClient.mine({ blocks: Number(expirationBlock - head) - 2 });
    const sent = await settleWithMintsOnce(worker().settle, worker().home, settleOptions);
    expect(sent.mint?.kind).toBe('in-flight');
    const receipt = await mined(polygon, (sent.mint as { txHash: Hex }).txHash);
    expect(receipt.blockNumber).toBe(expirationBlock - 1n);
    await mintAndFlush(worker(), polygon, settleOptions);
    const row = await transferOf(payment.id);
    expect(row).toMatchObject({ step: 'done', attested_message: message, expired_at: null });
    expect(await usdcOf(polygon, payment.deposit!.depositAddress)).toBe(0n);
  });

  it('Iris down when the re-attestation is due: waited for, asked once it answers, then minted once', async () => {
    clock = new TestClock();
    const payment = await attestedFastPayment();
    const expiredMessage = (await transferOf(payment.id)).attested_message as string;
    const expirationBlock = decodeBurnMessageV2(
      decodeMessageV2(expiredMessage as Hex).messageBody,
    ).expirationBlock;
    const head = await polygon.anvil.publicClient.getBlockNumber({ cacheTime: 0 });
    await polygon.anvil.testClient.mine({ blocks: Number(expirationBlock - head) });
    expect((await settleWithMintsOnce(worker().settle, worker().home, settleOptions)).mint.kind).toBe(
      'expired',
    );

    net.attestation.setFault('unavailable');
    try {
      expect((await attestOnce(worker().source, sourceOptions())).waiting).toHaveLength(1);
    } finally {
      net.attestation.setFault('none');
    }
    expect(await transferOf(payment.id)).toMatchObject({
      step: 'attest',
      reattest_requested_at: null,
      last_error: expect.stringMatching(/attestation API unavailable/),
    });
    clock.advance(60_000);
    await reattested(payment.id);
    await mintAndFlush(worker(), polygon, settleOptions);
    await expectMintedOnceAndSettled(payment, expiredMessage);
  });

  it('a worker that dies after Circle accepted the request: the next one adopts what was signed, not asking again', async () => {
    clock = new TestClock();
    const payment = await attestedFastPayment();
    const expiredMessage = (await transferOf(payment.id)).attested_message as string;
    const expirationBlock = decodeBurnMessageV2(
      decodeMessageV2(expiredMessage as Hex).messageBody,
    ).expirationBlock;
    const head = await polygon.anvil.publicClient.getBlockNumber({ cacheTime: 0 });
    await polygon.anvil.testClient.mine({ blocks: Number(expirationBlock - head) });
    expect((await settleWithMintsOnce(worker().settle, worker().home, settleOptions)).mint.kind).toBe(
      'expired',
    );

    // The request went out and was accepted, but the worker died before recording it; Base then went final.
    const nonce = decodeMessageV2(expiredMessage as Hex).nonce;
    expect(
      await createAttestationClient({ baseUrl: net.attestation.url, timeoutMs: 5_000 }).reattest(nonce),
    ).toEqual({
      state: 'requested',
      nonce,
    });
    expect((await transferOf(payment.id)).reattest_requested_at).toBeNull();
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.standard });
    // The next worker finds the message re-signed: recorded without asking again (one request: the lookup).
    const requests = net.attestation.requestCount();
    expect((await attestOnce(worker().source, sourceOptions())).attested).toHaveLength(1);
    expect(net.attestation.requestCount() - requests).toBe(1);
    await mintAndFlush(worker(), polygon, settleOptions);
    await expectMintedOnceAndSettled(payment, expiredMessage);
  });
});
