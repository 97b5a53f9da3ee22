/** The comparison of README.md's example answers with real ones (its real run is in test/sandbox/sandbox.e2e.test.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { differences, walkthroughExamples } from '../helpers/readmeExamples.ts';

describe("README.md's walk-through examples", () => {
  it('are read, in order, one per answer shown, elisions included', () => {
    const examples = walkthroughExamples(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'));
    expect(examples).toHaveLength(7);
    expect(examples[0]).toMatchObject({ currency: 'EUR' });
    expect(examples[6]).toStrictEqual({ error: 'Invalid or missing API key', code: 'UNAUTHORIZED' });
  });

  it('find a missing, an extra or a misplaced key, and a value of another kind or form', () => {
    const example = {
      id: '<id>',
      status: 'pending',
      amount: '27.00',
      address: '0x15d3…6A65',
      payout_status: 'not_due',
    };
    const real = {
      id: 'p1',
      status: 'pending',
      amount: '27.00',
      address: '0x15d34AAf6A65',
      payout_status: 'pending',
    };
    expect(differences(example, real, { '<id>': 'p1' }, ['payout_status'])).toEqual([]);
    expect(differences(example, { ...real, extra: 1 }, { '<id>': 'p1' }, ['payout_status'])).toEqual([
      '$: the README does not show extra',
    ]);
    const { amount: _, ...withoutAmount } = real;
    expect(differences(example, withoutAmount, { '<id>': 'p1' }, ['payout_status'])[0]).toBe(
      '$: the real answer has no amount',
    );
    const reordered = {
      status: 'pending',
      id: 'p1',
      amount: '27.00',
      address: '0x15d34AAf6A65',
      payout_status: 'x',
    };
    expect(differences(example, reordered, { '<id>': 'p1' }, ['payout_status'])).toEqual([
      '$: keys come as status, id, amount, address, payout_status',
    ]);
    expect(
      differences(example, { ...real, amount: 27, address: '0x99' }, { '<id>': 'p1' }, ['payout_status']),
    ).toEqual(['$.amount: 27 is not a string', '$.address: "0x99" is not of the form "0x15d3…6A65"']);
    expect(differences({ a: 'x', '…more': true }, { z: 1, a: 'x' }, {})).toEqual([]);
  });
});
