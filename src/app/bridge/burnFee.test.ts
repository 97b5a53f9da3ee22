import { describe, expect, it } from 'vitest';
import { recordingLogger } from '../../../test/fakes/recordingLogger.ts';
import { burnFeeOffer, quotedMaxFee } from './burnFee.ts';
import type { SourceBridgeDeps, SourceBridgeOptions } from './options.ts';
import type { BridgeTransfer, PaymentForwarder } from './ports.ts';

/**
 * The fee a burn offers, decided from what the source chain and Circle ask (decision 0035); the chain and Iris
 * stand-ins here answer what each case needs (the anvil tests, test/bridge/bridgeMinimumFee.test.ts, do it for real).
 */
const AMOUNT = 10_000_000n; // 10 USDC: 1 bp is 1 000 base units

function deps(answers: {
  minimum: bigint | Error;
  routeCapBps?: number;
  fastFee?: bigint | Error;
}): SourceBridgeDeps {
  const answer = <T>(value: T | Error) =>
    value instanceof Error ? Promise.reject(value) : Promise.resolve(value);
  return {
    source: {
      domain: 6,
      minimumBurnFee: () => answer(answers.minimum),
      burnFeeCapBps: () => Promise.resolve(answers.routeCapBps ?? 10),
    },
    attestations: { fastMinimumFee: () => answer(answers.fastFee ?? 1_000n) },
    logger: { info() {}, warn() {}, error() {} },
  } as unknown as SourceBridgeDeps;
}

const options = (speed: 'fast' | 'standard', maxFeeBps = 10) => ({ speed, maxFeeBps }) as SourceBridgeOptions;
const forwarder = { factoryAddress: `0x${'fa'.repeat(20)}` } as PaymentForwarder;
const transfer = (speed: 'fast' | 'standard') =>
  ({ id: 'brg_1', speed, amountBaseUnits: AMOUNT }) as BridgeTransfer;

describe('burnFeeOffer', () => {
  it('offers a standard burn exactly the minimum, up to the cap itself, and holds it one base unit above', async () => {
    const offer = (minimum: bigint) =>
      burnFeeOffer(deps({ minimum }), options('standard', 1), forwarder, transfer('standard'));
    expect(await offer(0n)).toEqual({ kind: 'offer', maxFeeBaseUnits: 0n });
    expect(await offer(1_000n)).toEqual({ kind: 'offer', maxFeeBaseUnits: 1_000n });
    expect(await offer(1_001n)).toEqual({
      kind: 'held',
      reason:
        "CCTP's minimum fee for this burn is 0.001001 USDC (1.001 bp of 10.00 USDC), above the cap of 0.001 USDC " +
        '(1 bp): not burnt until the minimum falls or the cap rises',
    });
  });

  it("caps at the lower of the operator's setting and the forwarder's route", async () => {
    const held = await burnFeeOffer(
      deps({ minimum: 2_000n, routeCapBps: 1 }),
      options('standard', 10),
      forwarder,
      transfer('standard'),
    );
    expect(held).toMatchObject({ kind: 'held', reason: expect.stringContaining('cap of 0.001 USDC (1 bp)') });
  });

  it("offers a fast burn the higher of Circle's fast fee and the minimum, the cap when the fast fee is above it", async () => {
    const fast = (minimum: bigint, fastFee: bigint) =>
      burnFeeOffer(deps({ minimum, fastFee }), options('fast'), forwarder, transfer('fast'));
    expect(await fast(0n, 1_000n)).toEqual({ kind: 'offer', maxFeeBaseUnits: 1_000n });
    expect(await fast(2_000n, 1_000n)).toEqual({ kind: 'offer', maxFeeBaseUnits: 2_000n });
    // CCTP completes it at standard speed: still burnt, at the cap.
    expect(await fast(0n, 50_000n)).toEqual({ kind: 'offer', maxFeeBaseUnits: 10_000n });
    expect(await fast(10_001n, 1_000n)).toMatchObject({ kind: 'held' });
  });

  it('names the minimum in basis points as the messenger states it: whole, or to the thousandth without trailing zeros', async () => {
    const reason = async (minimum: bigint) => {
      const held = await burnFeeOffer(
        deps({ minimum }),
        options('standard', 1),
        forwarder,
        transfer('standard'),
      );
      return held.kind === 'held' ? held.reason : '';
    };
    expect(await reason(2_000n)).toContain('is 0.002 USDC (2 bp of 10.00 USDC)');
    expect(await reason(1_100n)).toContain('is 0.0011 USDC (1.1 bp of 10.00 USDC)');
    expect(await reason(1_010n)).toContain('(1.01 bp of');
  });

  it('offers a fast fee exactly at the cap without a warning, and warns when the fast fee is above it', async () => {
    const run = async (fastFee: bigint) => {
      const logger = recordingLogger();
      const offer = await burnFeeOffer(
        { ...deps({ minimum: 0n, fastFee }), logger },
        options('fast'),
        forwarder,
        transfer('fast'),
      );
      return { offer, lines: logger.lines };
    };
    expect(await run(10_000n)).toEqual({ offer: { kind: 'offer', maxFeeBaseUnits: 10_000n }, lines: [] });
    expect(await run(10_001n)).toEqual({
      offer: { kind: 'offer', maxFeeBaseUnits: 10_000n },
      lines: [
        {
          level: 'warn',
          fields: { transferId: 'brg_1', fastFee: '10001', cap: '10000' },
          message: "Circle's fast fee is above the cap: this burn will complete at standard speed",
        },
      ],
    });
  });

  it('never burns on a minimum or a fast fee it could not read', async () => {
    expect(
      await burnFeeOffer(
        deps({ minimum: new Error('connect ECONNREFUSED') }),
        options('standard'),
        forwarder,
        transfer('standard'),
      ),
    ).toEqual({ kind: 'held', reason: "CCTP's minimum fee could not be read: connect ECONNREFUSED" });
    expect(
      await burnFeeOffer(
        deps({ minimum: 0n, fastFee: new Error('attestation API unreachable') }),
        options('fast'),
        forwarder,
        transfer('fast'),
      ),
    ).toEqual({
      kind: 'held',
      reason: "Circle's fast transfer fee could not be read: attestation API unreachable",
    });
  });
});

describe('quotedMaxFee', () => {
  it("is the quote's max_fee_bps of the amount: the cap for fast, nothing for standard", () => {
    expect(quotedMaxFee(options('fast', 10), AMOUNT)).toBe(10_000n);
    expect(quotedMaxFee(options('fast', 10), 9_999n)).toBe(9n);
    expect(quotedMaxFee(options('standard', 10), AMOUNT)).toBe(0n);
  });
});
