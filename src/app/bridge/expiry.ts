import type { HomeBridgeDeps } from './options.ts';
import type { BridgeTransfer } from './ports.ts';

/** An attested message the home chain will no longer receive: its expiration block and the chain's head. */
export interface Expiry {
  readonly expirationBlock: bigint;
  readonly headBlock: bigint;
}

/**
 * Whether the transfer's attested message has expired for its mint. Circle's TokenMessengerV2 refuses a burn
 * message in any block at or past its `expirationBlock` (it mints only while `expirationBlock > block.number`;
 * 0 never expires), and a mint sent now is mined in the block after the head at the earliest: so a message
 * whose expiration block is at most head + 1 can no longer be minted and must be re-attested. Read before
 * each mint is sent, and after one reverted or lost its nonce.
 */
export async function expiryOf(deps: HomeBridgeDeps, transfer: BridgeTransfer): Promise<Expiry | undefined> {
  if (transfer.attestedMessage === null) return undefined;
  const expirationBlock = deps.home.expirationBlockOf(transfer.attestedMessage);
  if (expirationBlock === 0n) return undefined;
  const headBlock = await deps.home.blockNumber();
  return headBlock + 1n >= expirationBlock ? { expirationBlock, headBlock } : undefined;
}

/**
 * Sends the transfer back to its attest step, where its source chain's job asks Circle to re-attest the message
 * (at finalized level, without expiry) and waits for it: at once, as a stall reported on the payment.
 */
export async function sendBackForReattestation(
  deps: HomeBridgeDeps,
  transfer: BridgeTransfer,
  expiry: Expiry,
): Promise<boolean> {
  const now = deps.clock.now();
  const reason =
    `the attested message expired at block ${expiry.expirationBlock} of chain ${deps.home.chainId} ` +
    `(at block ${expiry.headBlock}) before its mint: to be re-attested`;
  const moved = await deps.bridge.recordExpiry(
    transfer.id,
    { reason, nextAttemptAt: now, stalled: true },
    now,
  );
  deps.logger.warn(
    {
      transferId: transfer.id,
      paymentId: transfer.paymentId,
      expirationBlock: expiry.expirationBlock.toString(),
      headBlock: expiry.headBlock.toString(),
    },
    'attested message expired before its mint: sent back for re-attestation',
  );
  return moved;
}
