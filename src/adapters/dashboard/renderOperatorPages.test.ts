import { describe, expect, it } from 'vitest';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { ServiceMeasurements } from '../../app/operations/measureService.ts';
import { PAYMENT_STATUSES } from '../../domain/paymentStatus.ts';
import { DELIVERY_STATUSES } from '../../domain/webhookDelivery.ts';
import type { Language } from '../web/language.ts';
import { DASHBOARD_TEXT } from './messages/index.ts';
import { nativeBalance, renderHealth } from './renderOperatorPages.ts';

const operator = {
  user: { email: 'ops@paylink.example', role: 'operator', merchantId: null },
  session: { csrfToken: 'csrf' },
} as unknown as SignedIn;

const measured = (overrides: Partial<ServiceMeasurements> = {}): ServiceMeasurements => ({
  databaseUp: true,
  paymentsByStatus: new Map(PAYMENT_STATUSES.map((s, i) => [s, i + 1])),
  webhookEventsByStatus: new Map(DELIVERY_STATUSES.map((s, i) => [s, i + 1])),
  chains: [{ chainId: 137, rpcUp: true, watcherLagBlocks: 1, watcherLagSeconds: 2 }],
  relayers: [
    { chainId: 137, balanceWei: 973_112_345_678_901_234n, lowBalanceWei: 10n ** 17n, ageSeconds: 5 },
  ],
  ...overrides,
});

const health = (lang: Language, overrides: Partial<ServiceMeasurements> = {}) =>
  renderHealth({
    signedIn: operator,
    ctx: { assets: { stylesheet: 's.css', script: 's.js' }, lang, t: DASHBOARD_TEXT[lang] },
    measured: measured(overrides),
    nativeSymbols: new Map([
      [137, 'POL'],
      [8453, 'ETH'],
      [43114, 'AVAX'],
    ]),
    at: new Date('2026-11-27T06:00:00.000Z'),
  });

/** The text of the definition that follows the term `label`. */
const fact = (page: string, label: string) =>
  new RegExp(`<dt>${label}</dt><dd[^>]*>(.*?)</dd>`).exec(page)?.[1] ?? '';

describe('the health page', () => {
  it('shows the relayer balance rounded for people, the exact figure on hover', () => {
    const page = health('en');
    expect(fact(page, 'Relayer gas, chain 137')).toContain(
      '<span title="0.973112345678901234 POL">0.9731 POL</span> (read 5 s ago)',
    );
    expect(String(nativeBalance(0n, 'POL'))).toContain('>0.0000 POL<');
    expect(String(nativeBalance(12n, 'POL'))).toContain('>&lt; 0.0001 POL<');
    expect(String(nativeBalance(25n * 10n ** 18n, 'POL'))).toContain('>25.0000 POL<');
  });

  it("states each chain's relayer balance in that chain's native token, LOW only strictly below", () => {
    const page = health('en', {
      relayers: [
        { chainId: 137, balanceWei: 10n ** 17n, lowBalanceWei: 10n ** 17n, ageSeconds: 5 },
        { chainId: 8453, balanceWei: 5n * 10n ** 15n - 1n, lowBalanceWei: 5n * 10n ** 15n, ageSeconds: 7 },
        { chainId: 43114, balanceWei: 2n * 10n ** 18n, lowBalanceWei: 5n * 10n ** 17n, ageSeconds: 9 },
        { chainId: 10, balanceWei: 10n ** 18n, lowBalanceWei: 0n, ageSeconds: 11 },
      ],
    });
    const low = DASHBOARD_TEXT.en.health.low;
    expect(fact(page, 'Relayer gas, chain 137')).toBe(
      '<span title="0.1 POL">0.1000 POL</span> (read 5 s ago)',
    );
    expect(fact(page, 'Relayer gas, chain 8453')).toBe(
      `<span title="0.004999999999999999 ETH">0.0049 ETH</span> (read 7 s ago) — ${low}`,
    );
    expect(fact(page, 'Relayer gas, chain 43114')).toBe(
      '<span title="2 AVAX">2.0000 AVAX</span> (read 9 s ago)',
    );
    // A chain no longer configured: its token is not known, so none is named rather than a wrong one.
    expect(fact(page, 'Relayer gas, chain 10')).toBe('<span title="1">1.0000</span> (read 11 s ago)');
  });

  it.each(['fr', 'de', 'es'] as const)('leaves no status word in English in %s', (lang) => {
    const page = health(lang);
    const t = DASHBOARD_TEXT[lang];
    const words = (label: string) =>
      fact(page, label)
        .split(', ')
        .map((part) => part.replace(/: \d+$/, ''));
    expect(words(t.health.paymentsByStatus)).toEqual(PAYMENT_STATUSES.map((s) => t.status[s]));
    expect(words(t.health.webhooksByDelivery)).toEqual(DELIVERY_STATUSES.map((s) => t.deliveryStatus[s]));
    // Every English status word (or one of its letters' runs) that differs from the language's is gone.
    const english = [...PAYMENT_STATUSES, ...DELIVERY_STATUSES].filter(
      (s) => ![...Object.values(t.status), ...Object.values(t.deliveryStatus)].includes(s),
    );
    for (const word of english) expect(page).not.toMatch(new RegExp(`[>,] ${word}: |>${word}: `));
  });

  it('writes the blocks behind in the language’s plural: one block, two blocks; French 0 and 1 singular', () => {
    const lag = (lang: Language, blocks: number) =>
      fact(
        health(lang, {
          chains: [{ chainId: 137, rpcUp: true, watcherLagBlocks: blocks, watcherLagSeconds: 2 }],
        }),
        DASHBOARD_TEXT[lang].health.watcherBehind,
      );
    expect(lag('en', 1)).toBe('1 block, 2 s');
    expect(lag('en', 2)).toBe('2 blocks, 2 s');
    expect(lag('en', 0)).toBe('0 blocks, 2 s');
    expect(lag('fr', 1)).toBe('1 bloc, 2 s');
    expect(lag('fr', 0)).toBe('0 bloc, 2 s');
    expect(lag('fr', 3)).toBe('3 blocs, 2 s');
    expect(lag('de', 1)).toBe('1 Block, 2 s');
    expect(lag('de', 4)).toBe('4 Blöcke, 2 s');
    expect(lag('es', 1)).toBe('1 bloque, 2 s');
    expect(lag('es', 5)).toBe('5 bloques, 2 s');
  });
});
