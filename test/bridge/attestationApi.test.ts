/**
 * The client of Circle's attestation API against answers recorded in Iris's real format (test/fixtures/cctp/),
 * served over a real socket: what each answer means, that the v2 message codec reads Circle's bytes exactly as
 * Circle decodes them, and how a failing, slow or rate-limiting service is reported.
 */
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AttestationApiError,
  type AttestedMessage,
  burnAttestation,
  createAttestationClient,
  type MessagesLookup,
  parseMessages,
} from '../../src/adapters/cctp/attestationClient.ts';
import { fetchBurnFees, minimumMaxFee } from '../../src/adapters/cctp/burnFees.ts';
import {
  bytes32ToAddress,
  encodeBurnMessageV2,
  encodeMessageV2,
} from '../../src/adapters/cctp/cctpMessage.ts';
import { FixtureServer } from '../helpers/fixtureServer.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/cctp/${name}`, import.meta.url), 'utf8');
const txHash: Hex = `0x${'ab'.repeat(32)}`;

let server: FixtureServer;

beforeAll(async () => {
  server = await new FixtureServer().start();
});

afterAll(async () => {
  await server?.stop();
});

const client = (timeoutMs = 5_000) => createAttestationClient({ baseUrl: server.url, timeoutMs });

/** A raw server, for what the fixture server cannot do (headers, never answering). */
async function rawServer(listener: RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const raw: Server = createServer(listener);
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`,
    close: async () => {
      raw.closeAllConnections();
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    },
  };
}

function answering(status: number, body: string): void {
  server.respond = () => ({ status, body });
}

function completeOf(lookup: MessagesLookup): AttestedMessage {
  expect(lookup.state).toBe('found');
  const [message] = lookup.state === 'found' ? lookup.messages : [];
  expect(message?.status).toBe('complete');
  return message as AttestedMessage;
}

describe('recorded answers', () => {
  it.each(['messages-v2-complete.json', 'messages-v2-fast-complete.json'])(
    '%s: the message bytes decode field by field to what Circle decoded',
    async (name) => {
      answering(200, fixture(name));
      const message = completeOf(await client().messagesOf(0, txHash));
      const recorded = JSON.parse(fixture(name)).messages[0];
      const circle = recorded.decodedMessage;
      const short = (word: Hex) => bytes32ToAddress(word).toLowerCase();
      expect({
        sourceDomain: String(message.decoded.sourceDomain),
        destinationDomain: String(message.decoded.destinationDomain),
        nonce: message.decoded.nonce,
        sender: short(message.decoded.sender),
        recipient: short(message.decoded.recipient),
        destinationCaller: message.decoded.destinationCaller,
        minFinalityThreshold: String(message.decoded.minFinalityThreshold),
        finalityThresholdExecuted: String(message.decoded.finalityThresholdExecuted),
        messageBody: message.decoded.messageBody,
      }).toEqual({ ...circle, decodedMessageBody: undefined });
      const burn = message.burn!;
      expect({
        burnToken: short(burn.burnToken),
        mintRecipient: short(burn.mintRecipient),
        amount: String(burn.amount),
        messageSender: short(burn.messageSender),
        maxFee: String(burn.maxFee),
        feeExecuted: String(burn.feeExecuted),
        expirationBlock: String(burn.expirationBlock),
        hookData: burn.hookData === '0x' ? null : burn.hookData,
      }).toEqual(circle.decodedMessageBody);
      expect(message.attestation).toBe(recorded.attestation);
      // And back: the codec writes the very bytes Circle signed.
      expect(encodeMessageV2({ ...message.decoded, messageBody: encodeBurnMessageV2(burn) })).toBe(
        recorded.message,
      );
    },
  );

  it('pending confirmations, and a fast transfer delayed for its fee, are not ready', async () => {
    answering(200, fixture('messages-v2-pending.json'));
    expect(await client().messagesOf(0, txHash)).toEqual({
      state: 'found',
      messages: [
        {
          status: 'pending',
          eventNonce: '0x06ba18b1848922eb083b1a1ba26f2db18e435e9b4b8f5a3af727f8f120caa316',
          delayReason: null,
        },
      ],
    });
    answering(200, fixture('messages-v2-fast-delayed.json'));
    const lookup = await client().messagesOf(6, txHash);
    expect(
      burnAttestation(lookup, { sourceDomain: 6, mintRecipient: `0x${'11'.repeat(20)}`, amount: 1n }),
    ).toEqual({
      state: 'pending',
      delayReason: 'insufficient_fee',
    });
  });

  it('404 and an empty list both mean not seen yet, whatever the body says', async () => {
    answering(404, fixture('messages-v2-not-found.json'));
    expect(await client().messagesOf(0, txHash)).toEqual({ state: 'not_found' });
    answering(404, '{"error":"Transaction hash not found"}');
    expect(await client().messagesOf(0, txHash)).toEqual({ state: 'not_found' });
    answering(200, fixture('messages-v2-empty.json'));
    expect(await client().messagesOf(0, txHash)).toEqual({ state: 'not_found' });
  });

  it('asks for the source domain and the transaction, and nothing else', async () => {
    answering(404, fixture('messages-v2-not-found.json'));
    await client().messagesOf(6, txHash);
    expect(server.requests.at(-1)?.pathname).toBe('/v2/messages/6');
    expect(server.requests.at(-1)?.search).toBe(`?transactionHash=${txHash}`);
    await expect(client().messagesOf(6, '0x1234')).rejects.toThrow(TypeError);
  });

  it('picks our burn among several messages by mint recipient and amount, never the first blindly', () => {
    const standard = JSON.parse(fixture('messages-v2-complete.json')).messages[0];
    const fast = JSON.parse(fixture('messages-v2-fast-complete.json')).messages[0];
    const lookup = parseMessages(JSON.stringify({ messages: [standard, fast] }));
    const recipient = fast.decodedMessage.decodedMessageBody.mintRecipient as Address;
    const found = burnAttestation(lookup, { sourceDomain: 6, mintRecipient: recipient, amount: 10_000_000n });
    expect(found.state === 'complete' && found.message.message).toBe(fast.message);
    expect(
      burnAttestation(lookup, { sourceDomain: 6, mintRecipient: recipient, amount: 10_000_001n }),
    ).toEqual({
      state: 'not_found',
    });
    expect(
      burnAttestation(lookup, { sourceDomain: 0, mintRecipient: recipient, amount: 10_000_000n }),
    ).toEqual({
      state: 'not_found',
    });
  });

  it('takes the version as a number or as the string an older documentation example shows', () => {
    const recorded = JSON.parse(fixture('messages-v2-complete.json'));
    recorded.messages[0].cctpVersion = '2';
    expect(completeOf(parseMessages(JSON.stringify(recorded))).decoded.destinationDomain).toBe(6);
  });
});

describe('a service that misbehaves', () => {
  async function failure(call: Promise<unknown>): Promise<AttestationApiError> {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AttestationApiError);
    return error as AttestationApiError;
  }

  it('429 is rate limiting, with the wait Iris asks for or its documented five minutes', async () => {
    server.respond = () => ({ status: 429, body: '{}' });
    expect(await failure(client().messagesOf(0, txHash))).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 300_000,
    });
    const limiting = await rawServer((_request, response) => {
      response.writeHead(429, { 'retry-after': '7' }).end();
    });
    try {
      const error = await failure(
        createAttestationClient({ baseUrl: limiting.url, timeoutMs: 2_000 }).messagesOf(0, txHash),
      );
      expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 7_000 });
    } finally {
      await limiting.close();
    }
  });

  it('another status, a body that is not JSON or not the shape, and a complete message without bytes', async () => {
    answering(503, 'upstream down');
    expect((await failure(client().messagesOf(0, txHash))).kind).toBe('unavailable');
    answering(200, '<html>');
    expect((await failure(client().messagesOf(0, txHash))).kind).toBe('bad_answer');
    answering(200, '{"messages":[{"status":"complete"}]}');
    expect((await failure(client().messagesOf(0, txHash))).kind).toBe('bad_answer');
    const recorded = JSON.parse(fixture('messages-v2-complete.json'));
    recorded.messages[0].attestation = 'PENDING';
    answering(200, JSON.stringify(recorded));
    expect((await failure(client().messagesOf(0, txHash))).kind).toBe('bad_answer');
    recorded.messages[0].attestation = `0x${'aa'.repeat(65)}`;
    recorded.messages[0].message = '0x0001';
    answering(200, JSON.stringify(recorded));
    expect((await failure(client().messagesOf(0, txHash))).kind).toBe('bad_answer');
  });

  it('a service that does not answer in time, or is not there, is unavailable', async () => {
    const silent = await rawServer(() => {
      // Never answers.
    });
    try {
      const error = await failure(
        createAttestationClient({ baseUrl: silent.url, timeoutMs: 200 }).messagesOf(0, txHash),
      );
      expect(error.kind).toBe('unavailable');
      expect(error.message).toContain('no answer within 200 ms');
    } finally {
      await silent.close();
    }
    const gone = await failure(
      createAttestationClient({ baseUrl: silent.url, timeoutMs: 2_000 }).messagesOf(0, txHash),
    );
    expect(gone.kind).toBe('unavailable');
  });
});

describe('burn fees', () => {
  const fees = () =>
    fetchBurnFees({ baseUrl: server.url, timeoutMs: 2_000, sourceDomain: 6, destinationDomain: 7 });

  it('reads the minimum fee per finality threshold, exactly, with or without the forwarding fees', async () => {
    for (const name of ['burn-fees.json', 'burn-fees-forward.json']) {
      answering(200, fixture(name));
      expect(await fees()).toEqual([
        { finalityThreshold: 1000, minimumFeeBps: { units: 1n, scale: 0 } },
        { finalityThreshold: 2000, minimumFeeBps: { units: 0n, scale: 0 } },
      ]);
    }
    expect(server.requests.at(-1)?.pathname).toBe('/v2/burn/USDC/fees/6/7');
    answering(200, '[{"finalityThreshold":1000,"minimumFee":1.3}]');
    const [fractional] = await fees();
    expect(fractional?.minimumFeeBps).toEqual({ units: 13n, scale: 1 });
  });

  it('the least maxFee is the minimum fee of the amount, rounded up to a base unit', () => {
    expect(minimumMaxFee(10_000_000n, { units: 1n, scale: 0 })).toBe(1_000n);
    expect(minimumMaxFee(10_000_000n, { units: 13n, scale: 1 })).toBe(1_300n);
    expect(minimumMaxFee(10_001n, { units: 1n, scale: 0 })).toBe(2n);
    expect(minimumMaxFee(10_000n, { units: 1n, scale: 0 })).toBe(1n);
    expect(minimumMaxFee(123_456_789n, { units: 0n, scale: 0 })).toBe(0n);
  });

  it('an error, a float it cannot read or another shape is reported, never guessed', async () => {
    answering(400, fixture('error-400.json'));
    expect(await fees().catch((e: AttestationApiError) => e.kind)).toBe('unavailable');
    answering(200, '{"data":[{"finalityThreshold":1000,"minimumFee":1}]}');
    expect(await fees().catch((e: AttestationApiError) => e.kind)).toBe('bad_answer');
    answering(200, '[{"finalityThreshold":1000,"minimumFee":-1}]');
    expect(await fees().catch((e: AttestationApiError) => e.kind)).toBe('bad_answer');
  });
});
