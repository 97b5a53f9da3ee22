import { describe, expect, it } from 'vitest';
import { bridgeWorld, NOW } from '../../../test/fakes/bridgeWorld.ts';
import { bridgeTransfer } from '../../../test/fakes/fakeBridgeChains.ts';
import { expiryOf, sendBackForReattestation } from './expiry.ts';

/**
 * When an attested message can no longer be minted: its expiration block at most the head + 1 (a mint sent now is
 * mined in the next block at the earliest; the messenger mints only below the expiration block); 0 never expires.
 */
describe('expiryOf', () => {
  const world = (expirationBlock: bigint | undefined, head: bigint) => {
    const w = bridgeWorld();
    if (expirationBlock !== undefined) w.homeChain.expirations.set('0xattested', expirationBlock);
    w.homeChain.head = head;
    return w;
  };
  const waiting = bridgeTransfer({ step: 'mint', attestedMessage: '0xattested' });

  it('is expired from the block before its expiration block on, and not two blocks before', async () => {
    expect(await expiryOf(world(100n, 99n).home, waiting)).toEqual({ expirationBlock: 100n, headBlock: 99n });
    expect(await expiryOf(world(100n, 100n).home, waiting)).toEqual({
      expirationBlock: 100n,
      headBlock: 100n,
    });
    expect(await expiryOf(world(100n, 98n).home, waiting)).toBeUndefined();
  });

  it('never expires a message whose expiration block is 0, nor a transfer with no message yet', async () => {
    expect(await expiryOf(world(undefined, 10n ** 9n).home, waiting)).toBeUndefined();
    expect(await expiryOf(world(1n, 5n).home, { ...waiting, attestedMessage: null })).toBeUndefined();
  });
});

describe('sendBackForReattestation', () => {
  it('answers false, writing nothing, for a transfer no longer waiting to mint', async () => {
    const w = bridgeWorld();
    w.bridge.add(bridgeTransfer({ step: 'done' }));
    const moved = await sendBackForReattestation(w.home, w.bridge.get('brg_1'), {
      expirationBlock: 5n,
      headBlock: 5n,
    });
    expect(moved).toBe(false);
    expect(w.bridge.get('brg_1')).toMatchObject({ step: 'done', attempts: 0, expiredAt: null });
  });

  it('answers true once the transfer is back in its attest step, due at once', async () => {
    const w = bridgeWorld();
    w.bridge.add(bridgeTransfer({ step: 'mint', attestedMessage: '0xattested' }));
    expect(
      await sendBackForReattestation(w.home, w.bridge.get('brg_1'), { expirationBlock: 5n, headBlock: 4n }),
    ).toBe(true);
    expect(w.bridge.get('brg_1')).toMatchObject({ step: 'attest', nextAttemptAt: NOW, expiredAt: NOW });
  });
});
