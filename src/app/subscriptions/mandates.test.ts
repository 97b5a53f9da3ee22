import { describe, expect, it } from 'vitest';
import { capWithMargin, FIAT_CAP_MARGIN_PERCENT } from './mandates.ts';

describe("a fiat plan's proposed cap", () => {
  it('is the price in USDC and 10 %, rounded up to the cent of USDC', () => {
    expect(FIAT_CAP_MARGIN_PERCENT).toBe(10n);
    expect(capWithMargin(50_000_000n)).toBe(55_000_000n);
    expect(capWithMargin(10_800_000n)).toBe(11_880_000n);
    // 10.000001 USDC and 10 % is 11.0000011: the next cent up, never below the margin.
    expect(capWithMargin(10_000_001n)).toBe(11_010_000n);
    expect(capWithMargin(10_090_000n)).toBe(11_100_000n);
    expect(capWithMargin(1n)).toBe(10_000n);
  });
});
