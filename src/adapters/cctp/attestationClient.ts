/**
 * Circle's CCTP attestation API ("Iris"): `GET /v2/messages/{sourceDomain}?transactionHash=0x…` answers the
 * messages a burn transaction emitted, each with its attestation once Circle has signed it. Hosts:
 * https://iris-api.circle.com (mainnets), https://iris-api-sandbox.circle.com (testnets); the sandbox and the
 * tests run a local stand-in (`localAttestationService.ts`) answering in the same format.
 *
 * What the answers mean (Circle's "resolve a stuck attestation" guide): 404 is "not seen yet", not a failure;
 * `{"messages":[]}` is "seen, not processed"; any status other than `complete` is "not ready" (`pending`,
 * `pending_confirmations`, and `failed` as some clients also see). The client keys on the HTTP status, never an
 * error body (404 bodies have varied). Iris blocks every request for five minutes above 35 requests a second,
 * answering 429: that is reported with the wait it asks for, so that the caller backs off instead of hammering.
 */
import type { Address, Hex } from 'viem';
import { z } from 'zod';
import {
  type BurnMessageV2,
  bytes32ToAddress,
  decodeBurnMessageV2,
  decodeMessageV2,
  type MessageV2,
} from './cctpMessage.ts';

const hex = z.string().regex(/^0x[0-9a-fA-F]*$/, 'a 0x-prefixed hex string');

const messageSchema = z.object({
  status: z.string(),
  attestation: z.string(),
  message: z.string(),
  eventNonce: hex.optional(),
  // A JSON number in current answers; one older documentation example shows the string "2".
  cctpVersion: z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]),
  delayReason: z.string().nullish(),
});

const messagesSchema = z.object({
  messages: z.array(messageSchema),
  sourceTxHash: hex.optional(),
});

export type AttestedMessage = {
  status: 'complete';
  /** The bytes `receiveMessage` takes: nonce and executed threshold filled in by Circle. */
  message: Hex;
  attestation: Hex;
  decoded: MessageV2;
  /** The burn body, when the message is a burn. */
  burn: BurnMessageV2 | undefined;
};

export type PendingMessage = {
  status: 'pending';
  eventNonce: Hex | undefined;
  /** Why a fast transfer will complete at standard speed (`insufficient_fee`, …), or null. */
  delayReason: string | null;
};

export type MessagesLookup =
  | { state: 'not_found' }
  | { state: 'found'; messages: (AttestedMessage | PendingMessage)[] };

export type AttestationApiErrorKind = 'rate_limited' | 'unavailable' | 'bad_answer';

export class AttestationApiError extends Error {
  override readonly name = 'AttestationApiError';
  constructor(
    readonly kind: AttestationApiErrorKind,
    message: string,
    /** For `rate_limited`: how long Iris asked to wait (its `Retry-After`, else its documented 5 minutes). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Iris's documented lockout after too many requests, when its 429 does not say. */
const RATE_LIMIT_LOCKOUT_MS = 300_000;

export type AttestationClient = {
  /** The messages the burn transaction `transactionHash` on `sourceDomain` emitted, as Iris knows them now. */
  messagesOf(sourceDomain: number, transactionHash: Hex, signal?: AbortSignal): Promise<MessagesLookup>;
  /**
   * `POST /v2/reattest/{nonce}`: asks Iris to sign the attested message of `nonce` again at finalized level
   * (an expired fast message comes back without expiry; the fee stays charged). Then `messagesOf` again.
   */
  reattest(nonce: Hex, signal?: AbortSignal): Promise<ReattestAnswer>;
};

/** Iris's answer to a re-attestation request: accepted, or refused (404: nonce unknown; 400: not re-attestable). */
export type ReattestAnswer =
  | { state: 'requested'; nonce: string }
  | { state: 'not_found' }
  | { state: 'bad_request' };

export function createAttestationClient(options: {
  baseUrl: string;
  /** Per request; a slow Iris is reported as unavailable, to be asked again later. */
  timeoutMs: number;
}): AttestationClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  return {
    async messagesOf(sourceDomain, transactionHash, signal) {
      if (!Number.isInteger(sourceDomain) || sourceDomain < 0) {
        throw new RangeError(`not a CCTP domain: ${sourceDomain}`);
      }
      if (!/^0x[0-9a-fA-F]{64}$/.test(transactionHash)) {
        throw new TypeError(`not a transaction hash: ${JSON.stringify(transactionHash)}`);
      }
      const url = `${baseUrl}/v2/messages/${sourceDomain}?transactionHash=${transactionHash}`;
      const { status, text } = await askIris(url, { method: 'GET' }, options.timeoutMs, signal);
      if (status === 404) return { state: 'not_found' };
      if (status !== 200)
        throw new AttestationApiError('unavailable', `attestation API answered HTTP ${status}`);
      return parseMessages(text);
    },
    async reattest(nonce, signal) {
      if (!/^0x[0-9a-fA-F]{64}$/.test(nonce)) throw new TypeError(`not a v2 nonce: ${JSON.stringify(nonce)}`);
      const url = `${baseUrl}/v2/reattest/${nonce}`;
      const { status, text } = await askIris(url, { method: 'POST' }, options.timeoutMs, signal);
      if (status === 404) return { state: 'not_found' };
      if (status === 400) return { state: 'bad_request' };
      const parsed = reattestSchema.safeParse(parseJson(text));
      if (!parsed.success)
        throw new AttestationApiError('bad_answer', 'attestation API answered a re-attestation unexpectedly');
      return { state: 'requested', nonce: parsed.data.nonce };
    },
  };
}

const reattestSchema = z.object({ message: z.string(), nonce: z.string() });

/**
 * One request to Iris: its status and body, or an `AttestationApiError` when it cannot answer now (unreachable,
 * slower than `timeoutMs`, rate limiting with the wait it asks, any status but 200, 400 and 404).
 */
async function askIris(
  url: string,
  init: { method: 'GET' | 'POST' },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ status: number; text: string }> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: init.method,
      headers: { accept: 'application/json' },
      signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
    });
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw error;
    const reason = timeout.aborted ? `no answer within ${timeoutMs} ms` : describe(error);
    throw new AttestationApiError('unavailable', `attestation API unreachable: ${reason}`);
  }
  if (response.status === 429) {
    throw new AttestationApiError(
      'rate_limited',
      'attestation API is rate limiting this client (HTTP 429)',
      retryAfterMs(response.headers.get('retry-after')),
    );
  }
  if (![200, 400, 404].includes(response.status)) {
    throw new AttestationApiError('unavailable', `attestation API answered HTTP ${response.status}`);
  }
  return { status: response.status, text };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AttestationApiError('bad_answer', 'attestation API answered with something other than JSON');
  }
}

/** The body of a 200 answer, checked and decoded; exported for the tests of the recorded answers. */
export function parseMessages(text: string): MessagesLookup {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AttestationApiError('bad_answer', 'attestation API answered with something other than JSON');
  }
  const parsed = messagesSchema.safeParse(json);
  if (!parsed.success) {
    throw new AttestationApiError(
      'bad_answer',
      `attestation API answered in an unexpected shape: ${parsed.error.message}`,
    );
  }
  if (parsed.data.messages.length === 0) return { state: 'not_found' };
  return { state: 'found', messages: parsed.data.messages.map(toMessage) };
}

function toMessage(entry: z.infer<typeof messageSchema>): AttestedMessage | PendingMessage {
  if (entry.status !== 'complete') {
    return {
      status: 'pending',
      eventNonce: entry.eventNonce as Hex | undefined,
      delayReason: entry.delayReason ?? null,
    };
  }
  const message = hex.safeParse(entry.message);
  const attestation = hex.safeParse(entry.attestation);
  // Two or more 65-byte signatures (r ‖ s ‖ v) in practice; anything else could never verify on chain.
  if (!message.success || !attestation.success || (attestation.data.length - 2) % 130 !== 0) {
    throw new AttestationApiError(
      'bad_answer',
      'attestation API marked a message complete without its bytes',
    );
  }
  try {
    const decoded = decodeMessageV2(message.data as Hex);
    const burn = decoded.messageBody === '0x' ? undefined : tryDecodeBurn(decoded.messageBody);
    return {
      status: 'complete',
      message: message.data as Hex,
      attestation: attestation.data as Hex,
      decoded,
      burn,
    };
  } catch (error) {
    throw new AttestationApiError(
      'bad_answer',
      `attestation API sent an undecodable message: ${describe(error)}`,
    );
  }
}

function tryDecodeBurn(body: Hex): BurnMessageV2 | undefined {
  try {
    return decodeBurnMessageV2(body);
  } catch {
    return undefined;
  }
}

export type BurnAttestation =
  | { state: 'complete'; message: AttestedMessage }
  | { state: 'pending'; delayReason: string | null }
  | { state: 'not_found' };

/**
 * Which of a transaction's messages is the burn we made: one transaction may emit several, so the answer is
 * matched on the mint recipient and the amount, never taken as `[0]`. While Circle has not signed, a pending
 * message carries no bytes to match: any pending message means ours may be it.
 */
export function burnAttestation(
  lookup: MessagesLookup,
  burn: { sourceDomain: number; mintRecipient: Address; amount: bigint },
): BurnAttestation {
  if (lookup.state === 'not_found') return { state: 'not_found' };
  const mintRecipient = burn.mintRecipient.toLowerCase();
  for (const message of lookup.messages) {
    if (
      message.status === 'complete' &&
      message.decoded.sourceDomain === burn.sourceDomain &&
      message.burn !== undefined &&
      message.burn.amount === burn.amount &&
      bytes32ToAddress(message.burn.mintRecipient).toLowerCase() === mintRecipient
    ) {
      return { state: 'complete', message };
    }
  }
  const pending = lookup.messages.find((message): message is PendingMessage => message.status === 'pending');
  return pending === undefined
    ? { state: 'not_found' }
    : { state: 'pending', delayReason: pending.delayReason };
}

function retryAfterMs(header: string | null): number {
  if (header === null) return RATE_LIMIT_LOCKOUT_MS;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? RATE_LIMIT_LOCKOUT_MS : Math.max(0, date - Date.now());
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
