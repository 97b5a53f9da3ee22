/**
 * A local stand-in for Circle's attestation API (Iris), for the sandbox and the tests: it answers
 * `GET /v2/messages/{sourceDomain}?transactionHash=0x…` (or `?nonce=0x…`), and the route's minimum fees at
 * `GET /v2/burn/USDC/fees/{source}/{destination}` (the standard entry is the source TokenMessengerV2's own
 * minimum, CCTP v2.1's `minFee`, read from its chain), in Iris's exact format, reading the
 * burn's `MessageSent` events from the source chain's own node and signing each message with test attester keys,
 * as Circle does once the burn is deep enough:
 * - 404 while the transaction is unknown (not mined, another domain, no message in it);
 * - `pending_confirmations` until the burn has the confirmations its speed needs (a fast transfer whose `maxFee`
 *   is below the fee says `delayReason: "insufficient_fee"` and waits for standard finality);
 * - `complete` with the message Circle would sign: a nonce assigned (one per message, stable across requests,
 *   so a message can never be attested twice under two nonces), the executed finality threshold, the fee kept
 *   (`feeExecuted`), and an attestation of one 65-byte signature per attester, in increasing signer order. A
 *   fast message expires `fastExpiryBlocks` blocks of the destination chain after it is signed
 *   (`expirationBlock`), and is signed once: asked again, the same message is answered;
 * - `POST /v2/reattest/{nonce}` (localReattestation.ts): a fast message is signed again at finalized level,
 *   without expiry and with the same fee, once its burn has a standard transfer's confirmations.
 * It can be made to fail like the real service (`setFault`) or to answer slowly (`setDelayMs`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Address,
  encodePacked,
  type Hex,
  isAddressEqual,
  keccak256,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { testMessageTransmitterV2Abi, testTokenMessengerV2Abi } from '../chain/contractAbis.ts';
import { predatesMinimumFee } from './burnsAndMints.ts';
import {
  type BurnMessageV2,
  decodeBurnMessageV2,
  decodeMessageV2,
  encodeBurnMessageV2,
  FINALITY_FAST,
  FINALITY_STANDARD,
  type MessageV2,
} from './cctpMessage.ts';
import { Signatures } from './localReattestation.ts';

export type AttestationSource = {
  domain: number;
  publicClient: PublicClient;
  messageTransmitter: Address;
  /**
   * The source's TokenMessengerV2, whose minimum fee (v2.1's `minFee`, set on chain by its min-fee controller)
   * the fees answer states and every message pays, as Circle's service follows its own contracts. Without it
   * the route has no minimum (a messenger before v2.1).
   */
  tokenMessenger?: Address;
};

export type LocalAttestationServiceOptions = {
  sources: readonly AttestationSource[];
  /** The test attesters' private keys: the destination transmitter must list their addresses. */
  attesterKeys: readonly Hex[];
  /** Blocks on top of the burn's block before Circle signs: a fast transfer after `fast`, a standard after `standard`. */
  confirmations: { fast: number; standard: number };
  /**
   * What Circle keeps from a fast transfer, in whole basis points of the amount, rounded up (Iris's fast
   * `minimumFee`), or the source messenger's minimum when that is more.
   */
  fastFeeBps: number;
  /**
   * For how many blocks of the destination chain (one of `sources`) a fast attestation is valid, from its
   * signing: its `expirationBlock` is the destination's block then plus this. 1000 unless said.
   */
  fastExpiryBlocks?: number;
  host?: string;
  port?: number;
};

/** How the service misbehaves: answers 503, drops the connection, or rate-limits with 429. */
export type AttestationFault = 'none' | 'unavailable' | 'reset' | 'rate_limited';

export type LocalAttestationService = {
  readonly url: string;
  setFault(fault: AttestationFault): void;
  setDelayMs(delayMs: number): void;
  /** How many requests it has received. */
  requestCount(): number;
  stop(): Promise<void>;
};

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

const DEFAULT_FAST_EXPIRY_BLOCKS = 1_000;

const badRequest: Answer = { status: 400, body: { code: 400, message: 'Bad request.' } };
const notFound: Answer = { status: 404, body: { code: 404, message: 'Not found.' } };
const txHashPattern = /^0x[0-9a-fA-F]{64}$/;

/** What answering needs: the options, the attesters in signing order, and the nonces seen so far. */
type Iris = {
  options: LocalAttestationServiceOptions;
  attesters: readonly { key: Hex; address: Address }[];
  /** eventNonce → the transaction its message was found in, for `?nonce=` lookups of messages already seen. */
  nonces: Map<string, Hex>;
  /** eventNonce → its message as signed (once), and the nonces whose re-attestation was asked. */
  signatures: Signatures;
};

async function route(iris: Iris, method: string, url: URL): Promise<Answer> {
  const reattest = /^\/v2\/reattest\/([^/]+)$/.exec(url.pathname);
  if (reattest !== null && method === 'POST') return reattestAnswer(iris, reattest[1]!);
  if (method !== 'GET') return notFound;
  const fees = /^\/v2\/burn\/USDC\/fees\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  if (fees !== null) return burnFees(iris, fees[1]!, fees[2]!);
  const match = /^\/v2\/messages\/([^/]+)$/.exec(url.pathname);
  if (match === null) return notFound;
  if (!/^\d{1,9}$/.test(match[1]!)) return badRequest;
  const domain = Number(match[1]);
  const transactionHash = url.searchParams.get('transactionHash');
  const nonce = url.searchParams.get('nonce');
  if (transactionHash !== null) {
    return txHashPattern.test(transactionHash)
      ? messagesOf(iris, domain, transactionHash as Hex)
      : badRequest;
  }
  if (nonce === null) return badRequest;
  const seen = iris.nonces.get(nonce.toLowerCase());
  // Looked up on the asked domain's node: a nonce of another domain's message is not found there.
  return seen === undefined ? notFound : messagesOf(iris, domain, seen);
}

/**
 * The route's minimum fee per finality threshold, as Iris's fees endpoint answers it (basis points, a JSON
 * number that may be fractional): standard is the source messenger's on-chain minimum (thousandths of a basis
 * point there, so exact in three decimals), fast Circle's fast fee but never below that minimum.
 */
async function burnFees(iris: Iris, source: string, destination: string): Promise<Answer> {
  if (!/^\d{1,9}$/.test(source) || !/^\d{1,9}$/.test(destination) || source === destination)
    return badRequest;
  const from = iris.options.sources.find((s) => s.domain === Number(source));
  if (from === undefined) return notFound;
  const minimumBps = Number(await minFeeOf(from)) / MIN_FEE_PER_BP;
  return {
    status: 200,
    body: [
      { finalityThreshold: FINALITY_FAST, minimumFee: Math.max(iris.options.fastFeeBps, minimumBps) },
      { finalityThreshold: FINALITY_STANDARD, minimumFee: minimumBps },
    ],
  };
}

/** TokenMessengerV2's `minFee` is in thousandths of a basis point (out of its MIN_FEE_MULTIPLIER, 10 000 000). */
const MIN_FEE_PER_BP = 1_000;

/**
 * The source messenger's `minFee` now, or at `blockNumber`: 0 without a messenger to ask, or from one deployed
 * before v2.1 (a sandbox's saved chain from an older release).
 */
async function minFeeOf(source: AttestationSource, blockNumber?: bigint): Promise<bigint> {
  if (source.tokenMessenger === undefined) return 0n;
  try {
    return await source.publicClient.readContract({
      address: source.tokenMessenger,
      abi: testTokenMessengerV2Abi,
      functionName: 'minFee',
      ...(blockNumber === undefined ? {} : { blockNumber }),
    });
  } catch (error) {
    if (predatesMinimumFee(error)) return 0n;
    throw error;
  }
}

/**
 * What Circle keeps of a burn: at least the messenger's minimum in force when it was burnt (the burn could not
 * offer less; `getMinFeeAmount`'s rule: floor, but one base unit at least), for a fast transfer its fast fee
 * (whole basis points, rounded up) when it offered that; never more than the burn's `maxFee`.
 */
function feeKept(burn: BurnMessageV2, minFee: bigint, fastFeeBps: number, fast: boolean): bigint {
  const floor = (burn.amount * minFee) / 10_000_000n;
  const minimum = minFee === 0n ? 0n : floor === 0n ? 1n : floor;
  const fastFee = fast ? ceilDiv(burn.amount * BigInt(fastFeeBps), 10_000n) : 0n;
  const fee = minimum > fastFee ? minimum : fastFee;
  return fee < burn.maxFee ? fee : burn.maxFee;
}

async function messagesOf(iris: Iris, domain: number, transactionHash: Hex): Promise<Answer> {
  const source = iris.options.sources.find((s) => s.domain === domain);
  if (source === undefined) return notFound;
  let receipt: TransactionReceipt;
  try {
    receipt = await source.publicClient.getTransactionReceipt({ hash: transactionHash });
  } catch {
    return notFound;
  }
  const sent = parseEventLogs({
    abi: testMessageTransmitterV2Abi,
    eventName: 'MessageSent',
    logs: receipt.logs,
  })
    .filter((log) => isAddressEqual(log.address, source.messageTransmitter))
    .sort((a, b) => a.logIndex - b.logIndex);
  if (receipt.status !== 'success' || sent.length === 0) return notFound;
  // Uncached: a block mined a moment ago must count.
  const depth = Number((await source.publicClient.getBlockNumber({ cacheTime: 0 })) - receipt.blockNumber);
  const messages = [];
  for (const log of sent) {
    const nonce = keccak256(
      encodePacked(['uint32', 'bytes32', 'uint32'], [domain, transactionHash, log.logIndex]),
    );
    iris.nonces.set(nonce, transactionHash);
    const minFee = await minFeeOf(source, receipt.blockNumber);
    messages.push(await attest(iris, decodeMessageV2(log.args.message), nonce, depth, minFee));
  }
  return { status: 200, body: { messages, sourceTxHash: transactionHash } };
}

async function attest(iris: Iris, sent: MessageV2, nonce: Hex, depth: number, minFee: bigint) {
  const { confirmations, fastFeeBps } = iris.options;
  const known = iris.signatures.signed(nonce);
  if (known !== undefined) return iris.signatures.current(nonce, depth >= confirmations.standard);
  const burn = sent.messageBody === '0x' ? undefined : decodeBurnMessageV2(sent.messageBody);
  const fastAsked = sent.minFinalityThreshold <= FINALITY_FAST;
  const fastFee = burn === undefined ? 0n : ceilDiv(burn.amount * BigInt(fastFeeBps), 10_000n);
  const fast = fastAsked && burn !== undefined && burn.maxFee >= fastFee;
  const delayReason = fastAsked && !fast ? 'insufficient_fee' : null;
  if (depth < (fast ? confirmations.fast : confirmations.standard)) {
    return {
      attestation: 'PENDING',
      message: '0x',
      eventNonce: nonce,
      cctpVersion: 2,
      status: 'pending_confirmations',
      decodedMessage: null,
      delayReason,
    };
  }
  const expirationBlock = fast ? await expirationBlockOn(iris, sent.destinationDomain) : 0n;
  const body =
    burn === undefined
      ? undefined
      : { ...burn, feeExecuted: feeKept(burn, minFee, fastFeeBps, fast), expirationBlock };
  const signed: MessageV2 = {
    ...sent,
    nonce,
    finalityThresholdExecuted: fast ? FINALITY_FAST : FINALITY_STANDARD,
    messageBody: body === undefined ? sent.messageBody : encodeBurnMessageV2(body),
  };
  return iris.signatures.sign(signed, body, delayReason);
}

/** The block from which a fast message for `domain` is expired: that chain's block now, plus the window. */
async function expirationBlockOn(iris: Iris, domain: number): Promise<bigint> {
  const destination = iris.options.sources.find((s) => s.domain === domain);
  if (destination === undefined) return 0n;
  const window = BigInt(iris.options.fastExpiryBlocks ?? DEFAULT_FAST_EXPIRY_BLOCKS);
  return (await destination.publicClient.getBlockNumber({ cacheTime: 0 })) + window;
}

/** `POST /v2/reattest/{nonce}`: 400 for what is not a nonce or not a fast message signed, 404 for one unseen. */
function reattestAnswer(iris: Iris, nonce: string): Answer {
  if (!/^0x[0-9a-fA-F]{64}$/.test(nonce)) return badRequest;
  const asked = iris.signatures.ask(nonce.toLowerCase() as Hex, iris.nonces.has(nonce.toLowerCase()));
  if (asked === 'not_found') return notFound;
  if (asked === 'refused') return badRequest;
  return {
    status: 200,
    body: { message: 'Re-attestation successfully requested for nonce.', nonce: asked.nonce },
  };
}

export async function startLocalAttestationService(
  options: LocalAttestationServiceOptions,
): Promise<LocalAttestationService> {
  const attesters = options.attesterKeys
    .map((key) => ({ key, address: privateKeyToAccount(key).address }))
    .sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  const iris: Iris = {
    options,
    attesters,
    nonces: new Map(),
    signatures: new Signatures(attesters, decodedMessage),
  };
  let fault: AttestationFault = 'none';
  let delayMs = 0;
  let requests = 0;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    requests += 1;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (fault === 'reset') {
      request.socket.destroy();
      return;
    }
    let answer: Answer;
    if (fault === 'unavailable')
      answer = { status: 503, body: { code: 503, message: 'Service unavailable.' } };
    else if (fault === 'rate_limited')
      answer = { status: 429, body: { code: 429, message: 'Too many requests.' } };
    else {
      try {
        answer = await route(iris, request.method ?? 'GET', new URL(request.url ?? '/', 'http://iris.local'));
      } catch {
        answer = { status: 500, body: { code: 500, message: 'Internal server error.' } };
      }
    }
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(JSON.stringify(answer.body));
  }

  const server: Server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    setFault: (next) => {
      fault = next;
    },
    setDelayMs: (next) => {
      delayMs = next;
    },
    requestCount: () => requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Iris's `decodedMessage`: numbers as decimal strings, 20-byte addresses in lower case, empty hook data null. */
function decodedMessage(message: MessageV2, burn: BurnMessageV2 | undefined) {
  return {
    sourceDomain: String(message.sourceDomain),
    destinationDomain: String(message.destinationDomain),
    nonce: message.nonce,
    sender: shortAddress(message.sender),
    recipient: shortAddress(message.recipient),
    destinationCaller: /^0x0{64}$/.test(message.destinationCaller)
      ? message.destinationCaller
      : shortAddress(message.destinationCaller),
    minFinalityThreshold: String(message.minFinalityThreshold),
    finalityThresholdExecuted: String(message.finalityThresholdExecuted),
    messageBody: message.messageBody,
    decodedMessageBody:
      burn === undefined
        ? null
        : {
            burnToken: shortAddress(burn.burnToken),
            mintRecipient: shortAddress(burn.mintRecipient),
            amount: String(burn.amount),
            messageSender: shortAddress(burn.messageSender),
            maxFee: String(burn.maxFee),
            feeExecuted: String(burn.feeExecuted),
            expirationBlock: String(burn.expirationBlock),
            hookData: burn.hookData === '0x' ? null : burn.hookData,
          },
  };
}

function shortAddress(word: Hex): Hex {
  return `0x${word.slice(-40).toLowerCase()}`;
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}
