import { describe, expect, it } from 'vitest';
import type { RelayOutcome } from './relayAuthorizations.ts';
import { passOutcomeOf, relayPass } from './runGaslessRelayer.ts';

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

/** A store or port that fails the test if the pass touches it. */
const untouchable = (name: string) =>
  new Proxy(
    {},
    {
      get: (_target, key) => {
        if (key === 'then') return undefined;
        throw new Error(`${name}.${String(key)} was used`);
      },
    },
  ) as never;

describe('one pass of the relayer key: transfers and subscription charges, one in flight', () => {
  const sentCharge = {
    subscriptionId: 's',
    period: 1,
    status: 'sent',
    txHash: '0xc',
    rawTx: '0xraw',
    relayerNonce: 7n,
  };
  const relayer = (broadcasts: string[]) => ({
    nonce: async () => 7n,
    receipt: async () => undefined,
    broadcast: async (raw: string) => {
      broadcasts.push(raw);
      return { accepted: true as const };
    },
  });
  const clock = { now: () => new Date('2027-01-01T00:00:00Z') };
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

  it('advances a charge in flight and touches no transfer meanwhile', async () => {
    const broadcasts: string[] = [];
    const charges = {
      mandates: { inFlight: async () => sentCharge },
      relayer: relayer(broadcasts),
      charger: { chainId: 1, blockOf: async () => undefined },
      clock,
      logger,
    } as never;
    const deps = { gasless: untouchable('gasless'), chain: { chainId: 1 }, logger, charges } as never;
    expect(await relayPass(deps, {})).toBe('idle');
    expect(broadcasts).toEqual(['0xraw']); // the same bytes again, awaiting their receipt
  });

  it('sends no charge while a transfer is in flight', async () => {
    const broadcasts: string[] = [];
    const sentTransfer = { id: 'gas_1', txHash: '0xt', rawTx: '0xtransfer', relayerNonce: 7n };
    const deps = {
      gasless: { inFlight: async () => sentTransfer },
      relayer: relayer(broadcasts),
      chain: { chainId: 1 },
      clock,
      logger,
      charges: {
        mandates: { inFlight: async () => undefined, nextDue: untouchable('nextDue') },
        charger: { chainId: 1 },
      },
    } as never;
    expect(await relayPass(deps, {})).toBe('idle');
    expect(broadcasts).toEqual(['0xtransfer']);
  });

  it('looks for a charge due once no transfer is waiting', async () => {
    const asked: number[] = [];
    const deps = {
      gasless: {
        inFlight: async () => undefined,
        spendSince: async () => [],
        nextPending: async () => undefined,
      },
      chain: { chainId: 1 },
      clock,
      logger,
      charges: {
        mandates: {
          inFlight: async () => undefined,
          spendSince: async () => [],
          nextDue: async (chainId: number) => {
            asked.push(chainId);
            return undefined;
          },
        },
        charger: { chainId: 1 },
        clock,
      },
    } as never;
    expect(await relayPass(deps, {})).toBe('idle');
    expect(asked).toEqual([1]);
  });

  it("holds the transfers to the hour's budget with the charges' spend counted in it", async () => {
    const queues: unknown[] = [];
    const chargeSpend = { from: '0xc', paymentId: 'pay_c', client: 'subscriptions:mch_1', feeWei: 100n };
    const deps = {
      gasless: {
        inFlight: async () => undefined,
        spendSince: async () => [],
        nextPending: async (_chainId: number, queue: unknown) => {
          queues.push(queue);
          return undefined;
        },
      },
      chain: { chainId: 1 },
      clock,
      logger,
      charges: {
        mandates: {
          inFlight: async () => undefined,
          spendSince: async () => [chargeSpend],
          nextDue: async () => undefined,
        },
        charger: { chainId: 1 },
        clock,
      },
    } as never;
    expect(await relayPass(deps, { maxFeeWeiPerHour: 1_000n })).toBe('idle');
    // The charge's payer and its merchant spent their tenth of the hour: the transfers' queue skips them.
    expect(queues[0]).toMatchObject({
      skipPayers: ['0xc'],
      skipPayments: ['pay_c'],
      skipClients: ['subscriptions:mch_1'],
    });
  });
});
