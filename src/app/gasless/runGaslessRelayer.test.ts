import { describe, expect, it } from 'vitest';
import type { RelayOutcome } from './relayAuthorizations.ts';
import { passOutcomeOf } from './runGaslessRelayer.ts';

describe('the gasless relayer loop', () => {
  it.each<[RelayOutcome, 'busy' | 'idle']>([
    // One transaction done or sent: the next authorization may be waiting.
    [{ kind: 'sent', id: 'a', txHash: '0x1' }, 'busy'],
    [{ kind: 'mined', id: 'a', feeWei: 1n }, 'busy'],
    [{ kind: 'failed', id: 'a', reason: 'used' }, 'busy'],
    // Nothing to do, or something that takes time: wait the interval.
    [{ kind: 'idle' }, 'idle'],
    [{ kind: 'awaiting-receipt', id: 'a' }, 'idle'],
    [{ kind: 'capped', id: 'a', spentWei: 1n }, 'idle'],
    [{ kind: 'share-spent', id: 'a', spentWei: 1n }, 'idle'],
  ])('after %o the next pass is %s', (outcome, next) => {
    expect(passOutcomeOf(outcome)).toBe(next);
  });
});
