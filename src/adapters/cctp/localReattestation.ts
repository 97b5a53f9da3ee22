/**
 * The local attestation service's signed messages (localAttestationService.ts): each message is signed once and
 * answered the same afterwards, as Iris does (a fast one carries its `expirationBlock`, which must not move from
 * one request to the next), and signed again at finalized level when its re-attestation is asked
 * (`POST /v2/reattest/{nonce}`). Circle's documentation of that endpoint: the re-attestation gives a message
 * "a higher level of finality than was originally requested ... while still being forced to pay the fee", and
 * "can also be used to broadcast expired fast burns, by setting expiration block to 0". So the re-signed message
 * keeps its nonce and `feeExecuted`, and has `finalityThresholdExecuted` 2000 and `expirationBlock` 0; it is
 * signed once the burn has a standard transfer's confirmations (a finalized attestation waits for them).
 */
import { concat, type Hex, keccak256 } from 'viem';
import { sign } from 'viem/accounts';
import {
  type BurnMessageV2,
  encodeBurnMessageV2,
  encodeMessageV2,
  FINALITY_STANDARD,
  type MessageV2,
} from './cctpMessage.ts';

/** One element of Iris's `messages`, complete. */
export type SignedAnswer = {
  attestation: Hex;
  message: Hex;
  eventNonce: Hex;
  cctpVersion: 2;
  status: 'complete';
  decodedMessage: unknown;
  delayReason: string | null;
};

type Signed = { answer: SignedAnswer; message: MessageV2; body: BurnMessageV2 | undefined };

export class Signatures {
  private readonly byNonce = new Map<string, Signed>();
  /** Nonces whose re-attestation was asked and is not signed yet. */
  private readonly asked = new Set<string>();

  constructor(
    private readonly attesters: readonly { key: Hex }[],
    private readonly decoded: (message: MessageV2, body: BurnMessageV2 | undefined) => unknown,
  ) {}

  /** The message signed under `nonce`, if it was. */
  signed(nonce: string): SignedAnswer | undefined {
    return this.byNonce.get(nonce.toLowerCase())?.answer;
  }

  /** Signs `message` (its nonce filled in) by every attester, in increasing signer order, and keeps it. */
  async sign(message: MessageV2, body: BurnMessageV2 | undefined, delayReason: string | null) {
    const bytes = encodeMessageV2(message);
    const digest = keccak256(bytes);
    const signatures = await Promise.all(
      this.attesters.map(({ key }) => sign({ hash: digest, privateKey: key, to: 'hex' })),
    );
    const answer: SignedAnswer = {
      attestation: concat(signatures),
      message: bytes,
      eventNonce: message.nonce,
      cctpVersion: 2,
      status: 'complete',
      decodedMessage: this.decoded(message, body),
      delayReason,
    };
    this.byNonce.set(message.nonce.toLowerCase(), { answer, message, body });
    return answer;
  }

  /**
   * The message as signed; if its re-attestation was asked and the burn is now final on its chain, signed again
   * at finalized level without expiry (same nonce, same fee).
   */
  async current(nonce: string, finalOnSource: boolean): Promise<SignedAnswer> {
    const known = this.byNonce.get(nonce.toLowerCase());
    if (known === undefined) throw new Error(`no message signed under ${nonce}`);
    if (!this.asked.has(nonce.toLowerCase()) || !finalOnSource) return known.answer;
    this.asked.delete(nonce.toLowerCase());
    const body = known.body === undefined ? undefined : { ...known.body, expirationBlock: 0n };
    return this.sign(
      {
        ...known.message,
        finalityThresholdExecuted: FINALITY_STANDARD,
        messageBody: body === undefined ? known.message.messageBody : encodeBurnMessageV2(body),
      },
      body,
      null,
    );
  }

  /**
   * A re-attestation request for `nonce` (`seen`: a message of that nonce was found, signed or not): not found
   * if never seen; refused for a message not signed yet or already signed at finalized level (a standard
   * transfer, or one re-attested: nothing to raise); else asked, and asked again is the same answer.
   */
  ask(nonce: string, seen: boolean): 'not_found' | 'refused' | { nonce: string } {
    const known = this.byNonce.get(nonce.toLowerCase());
    if (known === undefined) return seen ? 'refused' : 'not_found';
    if (known.message.finalityThresholdExecuted >= FINALITY_STANDARD) return 'refused';
    this.asked.add(nonce.toLowerCase());
    return { nonce: known.message.nonce };
  }
}
