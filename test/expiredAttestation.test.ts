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
import { type Address, getAddress, type Hex, keccak256, parseEventLogs, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AttestationApiError, createAttestationClient } from '../src/adapters/cctp/attestationClient.ts';
import {
  decodeBurnMessageV2,
  decodeMessageV2,
  encodeBurnMessageV2,
  encodeMessageV2,
  FINALITY_FAST,
  FINALITY_STANDARD,
} from '../src/adapters/cctp/cctpMessage.ts';
import {
  forwarderFactoryV3Abi,
  testMessageTransmitterV2Abi,
  testUsdcAbi,
} from '../src/adapters/chain/contractAbis.ts';
import { predictDepositAddress, toForwarderStruct } from '../src/adapters/chain/forwarder.ts';
import { bridgeRepository } from '../src/adapters/db/bridgeRepository.ts';
import { ledgerRepository } from '../src/adapters/db/ledgerRepository.ts';
import { merchantRow } from '../src/adapters/db/merchantRepository.ts';
import { paymentRow } from '../src/adapters/db/paymentRepository.ts';
import { attestOnce } from '../src/app/bridge/attestStep.ts';
import { burnOnce } from '../src/app/bridge/burnStep.ts';
import { listCrossChain } from '../src/app/bridge/listCrossChain.ts';
import type { SourceBridgeOptions } from '../src/app/bridge/options.ts';
import { settleAndMintOnce } from '../src/app/bridge/settleAndMint.ts';
import { refreshPayments } from '../src/app/chain/refreshPayments.ts';
import type { SettleOptions } from '../src/app/settlement/options.ts';
import { testMerchant } from '../src/app/testing/merchantFixture.ts';
import { testPayment } from '../src/app/testing/paymentFixture.ts';
import type { Payment } from '../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY } from '../src/domain/payout.ts';
import {
  type BridgeWorker,
  bridgeWorker,
  customerPays,
  depositBalancesOf,
  mined,
  mintAndFlush,
  usdcOf,
} from './helpers/bridgeWorker.ts';
import { type CctpChain, type CctpChains, CIRCLE, RELAYER, startCctpChains } from './helpers/cctpChains.ts';
import { TestClock } from './helpers/clock.ts';
import { createTestDatabase, dialects, type TestDatabase } from './helpers/database.ts';

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
    readFileSync(new URL('./fixtures/cctp/reattest.json', import.meta.url), 'utf8'),
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
      await base.anvil
        .wallet(CIRCLE)
        .writeContract({
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
