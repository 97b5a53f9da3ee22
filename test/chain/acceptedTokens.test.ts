/**
 * Accepted tokens on anvil: bridged USDC.e pays when the operator accepts it (and is settled in its own token),
 * and is recorded, reported and left alone when it is only noticed — until an operator sweeps it.
 */
import type { Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { paymentStatusResponse } from '../../src/adapters/api/presenters.ts';
import { getPaymentStatus } from '../../src/app/payments/getPaymentStatus.ts';
import type { SettleOptions } from '../../src/app/settlement/options.ts';
import { settleOnce } from '../../src/app/settlement/settleOnce.ts';
import { sweepToken } from '../../src/app/settlement/sweepToken.ts';
import { payoutStateOf } from '../../src/domain/payment.ts';
import { DEFAULT_PAYOUT_POLICY, settledBaseUnits } from '../../src/domain/payout.ts';
import { type ChainHarness, startChainHarness } from '../helpers/chainHarness.ts';
import { runCli } from '../helpers/cli.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { freshSettler } from '../helpers/settler.ts';

describe.each(dialects)('accepted and noticed tokens on anvil, %s', (dialect) => {
  let h: ChainHarness;
  let logger: Logger;
  afterEach(async () => {
    await h?.close();
  });

  const start = async (bridgedUsdc: 'accepted' | 'noticed') => {
    h = await startChainHarness(dialect, {}, { bridgedUsdc });
    ({ logger } = capturingLogger());
  };
  const settler = () => freshSettler(h, logger);
  const options = (): SettleOptions => ({
    chainId: h.anvil.chain.id,
    payoutPolicy: DEFAULT_PAYOUT_POLICY,
    relayerLowBalanceWei: 10n ** 18n,
  });
  /** Settler passes (each flush made final and applied) until nothing is sent or in flight. */
  const settleAll = async () => {
    for (let pass = 0; pass < 10; pass += 1) {
      const result = await settleOnce(settler(), options());
      if (result.inFlight === null && result.send?.kind === 'idle') return;
      await h.finalizeAll();
    }
    throw new Error('settlement did not come to rest');
  };
  const statusBody = async (paymentId: string) => {
    const { payment, state, unaccepted } = await getPaymentStatus(
      { payments: h.stores.payments, ledger: h.stores.ledger, clock: h.clock },
      h.merchant.id,
      paymentId,
    );
    return paymentStatusResponse(
      payment,
      state,
      payoutStateOf(payment, state, DEFAULT_PAYOUT_POLICY, h.clock.now()),
      { unaccepted },
    );
  };
  const eventBodies = async (paymentId: string) =>
    (await h.stores.ledger.listEvents(paymentId)).map(
      (e) => JSON.parse(e.payload) as Record<string, unknown>,
    );

  it('an accepted USDC.e pays, alone or with USDC, and each token is settled in itself, exactly', async () => {
    await start('accepted');
    const alone = await h.createPayment('10');
    await h.pay(alone.deposit!.depositAddress, 10_000_000n, { token: h.bridgedUsdc });
    const mixed = await h.createPayment('10');
    await h.pay(mixed.deposit!.depositAddress, 4_000_000n);
    await h.pay(mixed.deposit!.depositAddress, 6_000_000n, { token: h.bridgedUsdc });
    await h.finalizeAll();
    await h.poll();

    expect(await statusBody(alone.id)).toMatchObject({
      status: 'paid',
      amount_due: '0.00',
      token_symbol: 'USDC.e',
      token_address: h.bridgedUsdc,
    });
    // The token named is that of the transfer that completed the payment.
    expect(await statusBody(mixed.id)).toMatchObject({ status: 'paid', token_symbol: 'USDC.e' });
    expect((await eventBodies(alone.id)).find((e) => e.event === 'payment.paid')).toMatchObject({
      token_symbol: 'USDC.e',
      token_address: h.bridgedUsdc,
    });

    await settleAll();
    const bps = BigInt(alone.quote.commissionBps);
    const share = (amount: bigint) => amount - (amount * bps) / 10_000n;
    expect(await h.balanceOf(h.addresses.merchant, h.bridgedUsdc)).toBe(
      share(10_000_000n) + share(6_000_000n),
    );
    expect(await h.balanceOf(h.addresses.merchant)).toBe(share(4_000_000n));
    for (const token of [h.usdc, h.bridgedUsdc]) {
      expect(await h.balanceOf(alone.deposit!.depositAddress, token)).toBe(0n);
      expect(await h.balanceOf(mixed.deposit!.depositAddress, token)).toBe(0n);
    }
    const { payment: settled } = await h.status(mixed.id);
    expect(settledBaseUnits(settled.payout)).toBe(10_000_000n);
    expect(settled.payout.merchantPaidBaseUnits).toBe(share(4_000_000n) + share(6_000_000n));
    expect((await statusBody(mixed.id)).payout_status).toBe('sent');
  });

  it('a noticed USDC.e does not pay: recorded, reported once, left alone; swept to the merchant when asked', async () => {
    await start('noticed');
    const payment = await h.createPayment('10');
    await h.pay(payment.deposit!.depositAddress, 10_000_000n, { token: h.bridgedUsdc });
    await h.finalizeAll();
    await h.poll();
    await h.poll();

    const body = await statusBody(payment.id);
    expect(body).toMatchObject({ status: 'pending', amount_received: '0.00', amount_due: '10.00' });
    expect(body.unaccepted_transfers).toEqual([
      {
        token_address: h.bridgedUsdc,
        token_symbol: 'USDC.e',
        amount: '10.00',
        from_address: h.addresses.customer,
        tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
    ]);
    const reports = (await eventBodies(payment.id)).filter((e) => e.event === 'payment.unaccepted_transfer');
    expect(reports).toEqual([
      expect.objectContaining({
        unaccepted_transfer: expect.objectContaining({ token_symbol: 'USDC.e', amount: '10.00' }),
      }),
    ]);

    // Not a payout: the settler does not touch it.
    await settleAll();
    expect(await h.balanceOf(payment.deposit!.depositAddress, h.bridgedUsdc)).toBe(10_000_000n);

    const sweep = (token: string) =>
      sweepToken(
        {
          payments: h.stores.payments,
          settlements: h.stores.settlements,
          tokenBalance: (t, holder) => h.balanceOf(holder, t as `0x${string}`),
        },
        payment.id,
        token,
      );
    await expect(sweep(h.usdc)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await sweep(h.bridgedUsdc)).toBe(10_000_000n);
    await settleAll();
    const fee = (10_000_000n * BigInt(payment.quote.commissionBps)) / 10_000n;
    expect(await h.balanceOf(h.addresses.merchant, h.bridgedUsdc)).toBe(10_000_000n - fee);
    expect(await h.balanceOf(h.addresses.treasury, h.bridgedUsdc)).toBe(fee);
    expect(await h.balanceOf(payment.deposit!.depositAddress, h.bridgedUsdc)).toBe(0n);
    // The payment's own payout (in USDC) is untouched: nothing of it was paid.
    const { payment: after } = await h.status(payment.id);
    expect(after.payout.merchantPaidBaseUnits).toBe(0n);
    expect(after.status).toBe('pending');
    // Nothing is left to sweep.
    await expect(sweep(h.bridgedUsdc)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('paylink payments sweep: forwards a noticed token through the CLI, and says why it will not', async () => {
    await start('noticed');
    const payment = await h.createPayment('10');
    await h.pay(payment.deposit!.depositAddress, 4_000_000n, { token: h.bridgedUsdc });
    await h.finalizeAll();
    await h.poll();
    const env = {
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_RPC_URL: h.anvil.rpcUrl,
      PAYLINK_USDC_ADDRESS: h.usdc,
    };
    const swept = await runCli(['payments', 'sweep', payment.id, '--token', h.bridgedUsdc], env);
    expect(swept.stderr).toBe('');
    expect(swept.code).toBe(0);
    expect(swept.stdout).toContain(`forward 4000000 base units of ${h.bridgedUsdc}`);
    await settleAll();
    expect(await h.balanceOf(payment.deposit!.depositAddress, h.bridgedUsdc)).toBe(0n);

    const again = await runCli(['payments', 'sweep', payment.id, '--token', h.bridgedUsdc], env);
    expect(again.code).toBe(2);
    expect(again.stderr).not.toBe('');
    const unknown = await runCli(
      ['payments', 'sweep', '6f1c1f2e-8a4b-4c1e-9d3a-2b7e5f0a9c11', '--token', h.bridgedUsdc],
      env,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('not found');
  });
});
