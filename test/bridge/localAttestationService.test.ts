/**
 * The local stand-in for Circle's attestation API answers in Iris's exact format (the recorded answers in
 * test/fixtures/cctp/ are the reference), from burns on a real anvil chain, and fails like the real one when
 * told to.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getAddress, type Hex, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttestationApiError, createAttestationClient } from '../../src/adapters/cctp/attestationClient.ts';
import { fetchBurnFees } from '../../src/adapters/cctp/burnFees.ts';
import { FINALITY_STANDARD } from '../../src/adapters/cctp/cctpMessage.ts';
import { forwarderFactoryV3Abi, testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import {
  type ForwarderParams,
  predictDepositAddress,
  toForwarderStruct,
} from '../../src/adapters/chain/forwarder.ts';
import { type CctpChain, type CctpChains, CIRCLE, RELAYER, startCctpChains } from '../helpers/cctpChains.ts';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/cctp/${name}`, import.meta.url), 'utf8')) as unknown;

let net: CctpChains;
let base: CctpChain;
let burnTx: Hex;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: 7 },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: 10 },
    ],
    { confirmations: { fast: 1, standard: 2 }, fastFeeBps: 1 },
  );
  base = net.chain('base');
  const params: ForwarderParams = {
    merchant: getAddress(toHex(randomBytes(20))),
    treasury: getAddress(toHex(randomBytes(20))),
    feeBps: 100,
    paymentId: randomUUID(),
  };
  const { factory, implementation } = net.factories.base!;
  const address = predictDepositAddress({ factory, implementation, params, version: 3 });
  const mined = async (hash: Hex) => {
    const receipt = await base.anvil.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`${hash} reverted`);
  };
  await mined(
    await base.anvil.wallet(CIRCLE).writeContract({
      address: base.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [address, 12_000_000n],
    }),
  );
  burnTx = await base.anvil.wallet(RELAYER).writeContract({
    address: factory,
    abi: forwarderFactoryV3Abi,
    functionName: 'deployAndBurn',
    args: [toForwarderStruct(params), 12_000_000n, 0n, FINALITY_STANDARD],
  });
  await mined(burnTx);
});

afterAll(async () => {
  net.attestation.setFault('none');
  net.attestation.setDelayMs(0);
  await net?.stop();
});

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${net.attestation.url}${path}`);
  return { status: response.status, body: await response.json() };
}

/** The structure of a JSON value: every key and the type of every leaf (hex strings by their length class). */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as object).map(([key, item]) => [key, shape(item)]));
  }
  if (typeof value === 'string' && /^0x[0-9a-f]{64}$/.test(value)) return 'bytes32';
  if (typeof value === 'string' && /^0x[0-9a-f]{40}$/.test(value)) return 'address';
  if (typeof value === 'string' && /^\d+$/.test(value)) return 'decimal string';
  if (typeof value === 'string' && /^0x([0-9a-f]{2})*$/.test(value)) return 'hex';
  return typeof value;
}

describe('answers in Iris’s format', () => {
  it('pending, then complete, each shaped exactly as Circle’s recorded answers', async () => {
    const path = `/v2/messages/6?transactionHash=${burnTx}`;
    const pending = await get(path);
    expect(pending.status).toBe(200);
    expect(shape(pending.body)).toEqual(shape(fixture('messages-v2-pending.json')));

    await base.anvil.testClient.mine({ blocks: 2 });
    const complete = await get(path);
    expect(complete.status).toBe(200);
    expect(shape(complete.body)).toEqual(shape(fixture('messages-v2-complete.json')));
    const [message] = (complete.body as { messages: { eventNonce: Hex; attestation: Hex }[] }).messages;
    // Two attesters: two 65-byte signatures, as real attestations carry.
    expect(message!.attestation).toMatch(/^0x[0-9a-f]{260}$/);

    // The same message is found by its nonce.
    expect((await get(`/v2/messages/6?nonce=${message!.eventNonce}`)).body).toEqual(complete.body);
    expect((await get(`/v2/messages/7?nonce=${message!.eventNonce}`)).status).toBe(404);
  });

  it('the route’s minimum fees, shaped as Iris’s', async () => {
    const answer = await get('/v2/burn/USDC/fees/6/7');
    expect(answer.status).toBe(200);
    expect(shape(answer.body)).toEqual(shape(fixture('burn-fees.json')));
    expect(
      await fetchBurnFees({
        baseUrl: net.attestation.url,
        timeoutMs: 2_000,
        sourceDomain: 6,
        destinationDomain: 7,
      }),
    ).toEqual([
      { finalityThreshold: 1000, minimumFeeBps: { units: 1n, scale: 0 } },
      { finalityThreshold: 2000, minimumFeeBps: { units: 0n, scale: 0 } },
    ]);
    expect((await get('/v2/burn/USDC/fees/6/6')).status).toBe(400);
    expect((await get('/v2/burn/USDC/fees/3/7')).status).toBe(404);
  });

  it('404 for what it has not seen, 400 for a request Iris refuses', async () => {
    const notFound = fixture('messages-v2-not-found.json');
    expect(await get(`/v2/messages/6?transactionHash=0x${'12'.repeat(32)}`)).toEqual({
      status: 404,
      body: notFound,
    });
    expect(await get(`/v2/messages/3?transactionHash=${burnTx}`)).toEqual({ status: 404, body: notFound });
    expect(await get(`/v2/messages/7?transactionHash=${burnTx}`)).toEqual({ status: 404, body: notFound });
    expect(await get(`/v2/messages/6?nonce=0x${'34'.repeat(32)}`)).toEqual({ status: 404, body: notFound });
    const badRequest = { code: 400, message: 'Bad request.' };
    expect(await get('/v2/messages/6')).toEqual({ status: 400, body: badRequest });
    expect(await get('/v2/messages/6?transactionHash=0x12')).toEqual({ status: 400, body: badRequest });
    expect(await get(`/v2/messages/base?transactionHash=${burnTx}`)).toEqual({
      status: 400,
      body: badRequest,
    });
  });
});

describe('failing on demand', () => {
  const client = (timeoutMs = 2_000) => createAttestationClient({ baseUrl: net.attestation.url, timeoutMs });
  const kindOf = (call: Promise<unknown>) =>
    call.then(
      () => 'answered',
      (error: unknown) => (error instanceof AttestationApiError ? error.kind : String(error)),
    );

  it('down (503 or a dropped connection), rate limiting, or slower than the client waits; then back', async () => {
    net.attestation.setFault('unavailable');
    expect(await kindOf(client().messagesOf(6, burnTx))).toBe('unavailable');
    net.attestation.setFault('reset');
    expect(await kindOf(client().messagesOf(6, burnTx))).toBe('unavailable');
    net.attestation.setFault('rate_limited');
    expect(await kindOf(client().messagesOf(6, burnTx))).toBe('rate_limited');
    net.attestation.setFault('none');
    net.attestation.setDelayMs(500);
    expect(await kindOf(client(100).messagesOf(6, burnTx))).toBe('unavailable');
    net.attestation.setDelayMs(0);
    const back = await client().messagesOf(6, burnTx);
    expect(back.state === 'found' && back.messages[0]?.status).toBe('complete');
  });
});
