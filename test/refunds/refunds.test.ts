import type { FastifyInstance } from 'fastify';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdsCode } from '../../src/adapters/chain/contractCode.ts';
import { createWebhookSender } from '../../src/adapters/outbound/webhookSender.ts';
import { memoryBucketStore } from '../../src/adapters/rateLimit/memoryBucketStore.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { announceRefunds } from '../../src/app/refunds/announceRefunds.ts';
import { claimRefund } from '../../src/app/refunds/claimRefund.ts';
import { dispatchWebhooks } from '../../src/app/webhooks/dispatchWebhooks.ts';
import { loadConfig } from '../../src/config/index.ts';
import { buildApiServer, buildCheckoutServer } from '../../src/main/webServers.ts';
import { adminRequest } from '../helpers/apiHarness.ts';
import { type ChainHarness, ROLES, startChainHarness } from '../helpers/chainHarness.ts';
import { runCli } from '../helpers/cli.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { refundWorkerPasses } from '../helpers/refundWorker.ts';
import { verifyAsMerchant, WebhookReceiver } from '../helpers/webhookReceiver.ts';

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field, and each field is asserted
type Body = Record<string, any>;

const CLAIM_TTL_MS = 7 * 24 * 60 * 60_000;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const ADMIN_TOKEN = 'refunds-admin-token-0123456789abcdef';
/** An address given code on anvil: a contract that is not one of ours (a smart-contract wallet, say). */
const CONTRACT_WALLET = '0x00000000000000000000000000000000c0ffee02' as Address;

/**
 * Refunds end to end (issue "Refunds and overpayments"): the merchant API over a real app, the customer paying
 * and the merchant funding with plain transfers on anvil, the real watcher, settler and refund announcer, and the
 * webhooks delivered to a real HTTP server and verified with `standardwebhooks`.
 */
describe.each(dialects)('refunds on %s', (dialect) => {
  let h: ChainHarness;
  let app: FastifyInstance;
  let apiKey: string;
  let merchantId: string;
  let webhookSecret: string;
  let receiver: WebhookReceiver;
  const { logger } = capturingLogger();
  /** Where refunds go: a wallet of the customer's that holds nothing, so balances are exact. */
  let refundWallet: Address;
  let otherWallet: Address;
  let claimDeps: Parameters<typeof claimRefund>[0];
  /** The checkout, serving the claim pages. */
  let checkout: FastifyInstance;

  beforeAll(async () => {
    h = await startChainHarness(dialect);
    refundWallet = h.anvil.addresses[3]!;
    otherWallet = h.anvil.addresses[4]!;
    receiver = await new WebhookReceiver().start();
    const created = await createMerchant(
      { merchants: h.stores.merchants, clock: h.clock, webhookAllowPrivate: true },
      {
        name: 'Refund Shop',
        wallet: h.addresses.merchant,
        webhookUrl: receiver.url(),
        commissionPercent: '2.5',
      },
    );
    apiKey = created.apiKey;
    merchantId = created.merchant.id;
    webhookSecret = created.merchant.webhookSecret;
    const config = loadConfig({
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_CHECKOUT_URL: 'https://pay.example.test',
      PAYLINK_BASE_URL: 'https://api.example.test',
      PAYLINK_NETWORK: 'sandbox',
      PAYLINK_RATES: 'static:EUR=1.08',
      PAYLINK_RATE_LIMIT: 'off',
      PAYLINK_RATE_LIMIT_IP: 'off',
      PAYLINK_REFUND_CLAIM_TTL: `${CLAIM_TTL_MS}ms`,
      PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    const deposits = { live: h.deposits };
    claimDeps = { refunds: h.stores.refunds, clock: h.clock, deposits };
    await h.anvil.testClient.setCode({ address: CONTRACT_WALLET, bytecode: '0x6000' });
    checkout = await buildCheckoutServer({
      ...h.stores,
      clock: h.clock,
      logger,
      network: { name: 'Sandbox', chainId: h.anvil.chain.id, explorerUrl: '' },
      refundClaims: {
        claim: claimDeps,
        isContract: (_chainId, address) => holdsCode(h.anvil.publicClient, address),
        buckets: memoryBucketStore(),
      },
    });
    app = await buildApiServer({
      ...h.stores,
      deposits,
      rates: h.rates,
      clock: h.clock,
      logger,
      config,
    });
  });

  afterAll(async () => {
    await checkout?.close();
    await app?.close();
    await receiver?.stop();
    await h?.close();
  });

  const call = async (
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await app.inject({
      method,
      url,
      headers: {
        'x-api-key': apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: response.statusCode, body: response.json() as Body };
  };
  /** A request to the claim page's routes on the checkout (no API key: the customer's browser). */
  const claimPage = async (
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await checkout.inject({
      method,
      url,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = response.body;
    const json = response.headers['content-type']?.toString().startsWith('application/json');
    return { status: response.statusCode, body: (json ? JSON.parse(text) : {}) as Body, text };
  };
  const refund = (body: unknown, headers?: Record<string, string>) =>
    call('POST', '/payments/api/refunds/', body, headers);
  const getRefund = async (id: string) => (await call('GET', `/payments/api/refunds/${id}/`)).body;
  const paymentStatus = async (id: string) => (await call('GET', `/payments/api/status/${id}/`)).body;

  /** What the worker does in a pass or two: watch to finality, flush and apply the flush, tell the refunds. */
  const workerPasses = () => refundWorkerPasses(h, logger);

  /** A payment created through the API and paid with a plain transfer, final and recorded. */
  const paidPayment = async (amount: string, paidBaseUnits: bigint, currency = 'USDC') => {
    const created = await call('POST', '/payments/api/create/', { amount, currency });
    expect(created.status).toBe(201);
    await h.pay(created.body.details.deposit_address, paidBaseUnits);
    await h.finalizeAll();
    await h.poll();
    return created.body.payment_id as string;
  };

  /** The merchant funds a refund from its wallet or exchange: a plain transfer (here from a funded account). */
  const fund = (depositAddress: string, baseUnits: bigint) =>
    h.pay(depositAddress, baseUnits, { fromIndex: ROLES.customer });

  it('a full refund to an address the merchant knows: funded by a plain transfer, received to the base unit', async () => {
    const paymentId = await paidPayment('27.00', 27_000_000n);
    const before = await h.balanceOf(refundWallet);
    const created = await refund({
      payment_id: paymentId,
      amount: '27.00',
      address: refundWallet.toLowerCase(),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      payment_id: paymentId,
      status: 'awaiting_funds',
      amount: '27.00',
      currency: 'USDC',
      address: refundWallet,
      address_source: 'merchant',
      chain_id: h.anvil.chain.id,
      token_address: h.usdc,
    });
    expect(created.body.claim_url).toBeUndefined();
    const deposit = created.body.deposit_address as string;
    expect(created.body.funding_uri).toBe(
      `ethereum:${h.usdc}@${h.anvil.chain.id}/transfer?address=${deposit}&uint256=27000000`,
    );
    // The refund's deposit address is no payment: the payment API does not know it.
    expect((await call('GET', `/payments/api/status/${created.body.refund_id}/`)).status).toBe(404);

    await fund(deposit, 27_000_000n);
    // Seen but not final: still awaiting funds.
    await h.poll();
    expect((await getRefund(created.body.refund_id)).status).toBe('awaiting_funds');

    const told = await workerPasses();
    expect(told).toContain(created.body.refund_id);
    expect(await h.balanceOf(refundWallet)).toBe(before + 27_000_000n);
    expect(await h.balanceOf(deposit)).toBe(0n);
    const done = await getRefund(created.body.refund_id);
    expect(done).toMatchObject({ status: 'refunded', amount_funded: '27.00', amount_sent: '27.00' });
    expect(done.txid).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await paymentStatus(paymentId)).toMatchObject({
      amount_refunded: '27.00',
      amount_overpaid: '0.00',
      refunds: [{ refund_id: created.body.refund_id, status: 'refunded', amount: '27.00' }],
    });
    // A second full refund would exceed what the payment received.
    const again = await refund({ payment_id: paymentId, amount: '0.01', address: refundWallet });
    expect(again).toMatchObject({ status: 409, body: { code: 'REFUND_EXCEEDS_PAYMENT' } });
  });

  it('two partial refunds up to what was received, a third refused; a payment with nothing received is not refundable', async () => {
    const paymentId = await paidPayment('20.00', 20_000_000n);
    const first = await refund({ payment_id: paymentId, amount: '12.5', reason: 'one item returned' });
    h.clock.advance(1_000);
    const second = await refund({ payment_id: paymentId, amount: 7.5 });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body).toMatchObject({
      status: 'awaiting_address',
      amount: '12.50',
      reason: 'one item returned',
    });
    expect(first.body.claim_url).toBe(`https://pay.example.test/refunds/${first.body.refund_id}`);
    expect(first.body.deposit_address).toBeUndefined();
    const third = await refund({ payment_id: paymentId, amount: '0.000001' });
    expect(third).toMatchObject({ status: 409, body: { code: 'REFUND_EXCEEDS_PAYMENT', field: 'amount' } });

    const unpaid = await call('POST', '/payments/api/create/', { amount: '5', currency: 'USDC' });
    const nothing = await refund({ payment_id: unpaid.body.payment_id, amount: '1' });
    expect(nothing).toMatchObject({ status: 409, body: { code: 'PAYMENT_NOT_REFUNDABLE' } });

    // A canceled refund no longer counts: its amount may be refunded again.
    h.clock.advance(1_000);
    const canceled = await call('POST', `/payments/api/refunds/${second.body.refund_id}/cancel/`);
    expect(canceled).toMatchObject({ status: 200, body: { status: 'canceled' } });
    expect((await refund({ payment_id: paymentId, amount: '7.50' })).status).toBe(201);

    const listed = await call('GET', `/payments/api/refunds/?payment_id=${paymentId}&limit=2`);
    expect(listed.status).toBe(200);
    expect(listed.body.refunds).toHaveLength(2);
    const rest = await call(
      'GET',
      `/payments/api/refunds/?payment_id=${paymentId}&limit=2&cursor=${listed.body.next_cursor}`,
    );
    expect(rest.body.refunds.map((r: { refund_id: string }) => r.refund_id)).toEqual([first.body.refund_id]);
    expect(rest.body.next_cursor).toBeNull();
  });

  it('the customer claims on the claim page (address checked, contracts warned), is paid exactly; a used claim says so', async () => {
    const paymentId = await paidPayment('10.00', 10_000_000n);
    const created = await refund({ payment_id: paymentId, amount: '4.00' });
    const refundId = created.body.refund_id as string;
    const page = await claimPage('GET', `/refunds/${refundId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Where should your refund go?');
    expect((await claimPage('GET', `/refunds/${refundId}/funding.svg`)).status).toBe(404);
    // The checksummed address with one letter's case flipped: a typo the checksum catches.
    const letter = otherWallet.slice(2).search(/[a-fA-F]/) + 2;
    const flipped = otherWallet[letter]!;
    const mixed = `${otherWallet.slice(0, letter)}${flipped === flipped.toLowerCase() ? flipped.toUpperCase() : flipped.toLowerCase()}${otherWallet.slice(letter + 1)}`;
    const paymentDeposit = (
      await getRefund(
        (
          await refund({ payment_id: paymentId, amount: '1', address: otherWallet })
        ).body.refund_id,
      )
    ).deposit_address as string;
    const bad: [string, string][] = [
      ['not an address', 'format'],
      [mixed, 'checksum'],
      ['0x0000000000000000000000000000000000000000', 'zero'],
      [h.usdc, 'service_contract'],
      [h.factory, 'service_contract'],
      [paymentDeposit, 'deposit_address'],
    ];
    for (const [address, problem] of bad) {
      // A customer's pace (the page limits attempts per refund and per client; the next test hits that limit).
      h.clock.advance(60_000);
      const checked = await claimPage('POST', `/refunds/${refundId}/check`, { address });
      expect(checked).toMatchObject({ status: 200, body: { valid: false, problem } });
      const claimed = await claimPage('POST', `/refunds/${refundId}/claim`, { address });
      expect(claimed).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR', problem } });
    }
    // A contract is allowed, with a warning the page shows first; an ordinary wallet is not one.
    expect(await claimPage('POST', `/refunds/${refundId}/check`, { address: CONTRACT_WALLET })).toMatchObject(
      {
        status: 200,
        body: { valid: true, contract: true },
      },
    );
    expect(
      await claimPage('POST', `/refunds/${refundId}/check`, { address: refundWallet.toLowerCase() }),
    ).toEqual({
      status: 200,
      body: { valid: true, address: refundWallet, contract: false },
      text: expect.any(String),
    });
    expect((await h.stores.refunds.find(refundId))?.refund.address).toBeNull();

    h.clock.advance(60_000);
    const claimed = await claimPage('POST', `/refunds/${refundId}/claim`, { address: refundWallet });
    expect(claimed).toMatchObject({
      status: 200,
      body: {
        refund_id: refundId,
        status: 'awaiting_funds',
        amount: '4.00',
        address: refundWallet,
        txid: null,
      },
    });
    // Only what the page shows: nothing of the merchant's (payment, reason).
    expect(Object.keys(claimed.body).sort()).toEqual(
      ['address', 'amount', 'amount_sent', 'refund_id', 'status', 'tx_url', 'txid'].sort(),
    );
    expect(await claimPage('POST', `/refunds/${refundId}/claim`, { address: otherWallet })).toMatchObject({
      status: 409,
      body: { code: 'REFUND_ALREADY_CLAIMED' },
    });
    const view = await getRefund(refundId);
    expect(view).toMatchObject({
      status: 'awaiting_funds',
      address: refundWallet,
      address_source: 'customer',
    });
    const qr = await claimPage('GET', `/refunds/${refundId}/funding.svg`);
    expect(qr.status).toBe(200);
    expect(qr.text).toMatch(/^<svg/);

    const before = await h.balanceOf(refundWallet);
    await fund(view.deposit_address, 4_000_000n);
    await workerPasses();
    expect(await h.balanceOf(refundWallet)).toBe(before + 4_000_000n);
    expect((await getRefund(refundId)).status).toBe('refunded');
    expect(await claimPage('GET', `/refunds/${refundId}/status.json`)).toMatchObject({
      status: 200,
      body: { status: 'refunded', amount_sent: '4.00', txid: (await getRefund(refundId)).txid },
    });
  });

  it('the claim page answers bad requests with the error shape, never a 5xx', async () => {
    const paymentId = await paidPayment('2.00', 2_000_000n);
    const refundId = (await refund({ payment_id: paymentId, amount: '1.00' })).body.refund_id as string;
    for (const path of ['check', 'claim']) {
      const url = `/refunds/${refundId}/${path}`;
      const cases: [unknown, Record<string, string>, number, string][] = [
        [{}, {}, 400, 'VALIDATION_ERROR'],
        [{ address: 42 }, {}, 400, 'VALIDATION_ERROR'],
        ['null', {}, 400, 'VALIDATION_ERROR'],
        ['{"address":', {}, 400, 'VALIDATION_ERROR'],
        [`{"address":"${'a'.repeat(2_000)}"}`, {}, 413, 'PAYLOAD_TOO_LARGE'],
        [
          'address=0x1',
          { 'content-type': 'application/x-www-form-urlencoded' },
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        ],
        ['0x1', { 'content-type': 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ];
      for (const [body, headers, status, code] of cases) {
        h.clock.advance(60_000);
        const answer = await claimPage('POST', url, body, headers);
        expect(answer, `${path} ${JSON.stringify(body).slice(0, 40)}`).toMatchObject({
          status,
          body: { code, error: expect.any(String) },
        });
      }
      for (const id of [UNKNOWN_ID, 'not-an-id'])
        expect(await claimPage('POST', `/refunds/${id}/${path}`, { address: refundWallet })).toMatchObject({
          status: 404,
          body: { code: 'NOT_FOUND' },
        });
    }
    expect((await claimPage('GET', `/refunds/${UNKNOWN_ID}/status.json`)).status).toBe(404);
    expect((await claimPage('GET', `/refunds/${UNKNOWN_ID}`)).text).toContain('Refund not found');
    // Someone trying address after address is slowed down, per refund: 429 with when to come back.
    h.clock.advance(10 * 60_000);
    const answers = [];
    for (let i = 0; i < 11; i++)
      answers.push(await claimPage('POST', `/refunds/${refundId}/check`, { address: refundWallet }));
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers[10]).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED' } });

    // A canceled refund's claim is closed.
    h.clock.advance(10 * 60_000);
    await call('POST', `/payments/api/refunds/${refundId}/cancel/`);
    expect(await claimPage('POST', `/refunds/${refundId}/claim`, { address: refundWallet })).toMatchObject({
      status: 409,
      body: { code: 'REFUND_CLOSED' },
    });
    expect((await h.stores.refunds.find(refundId))?.refund.address).toBeNull();
  });

  it('a refund to a blacklisted address waits and says why, then goes out once the token lets it', async () => {
    const paymentId = await paidPayment('6.00', 6_000_000n);
    const blocked = h.anvil.addresses[6]!;
    await h.control('blacklist', blocked);
    try {
      const created = await refund({ payment_id: paymentId, amount: '6.00', address: blocked });
      expect(created.status).toBe(201);
      await fund(created.body.deposit_address, 6_000_000n);
      await workerPasses();
      const waiting = await getRefund(created.body.refund_id);
      expect(waiting).toMatchObject({ status: 'processing', amount_funded: '6.00', amount_sent: '0.00' });
      expect(waiting.payout_delayed_reason).toContain('blacklisted');
      expect(await h.balanceOf(created.body.deposit_address)).toBe(6_000_000n);

      await h.control('unBlacklist', blocked);
      // Past the settler's back-off: the next pass sends it.
      h.clock.advance(2 * 60 * 60_000);
      await workerPasses();
      const sent = await getRefund(created.body.refund_id);
      expect(sent).toMatchObject({ status: 'refunded', amount_sent: '6.00', payout_delayed_reason: null });
      expect(await h.balanceOf(blocked)).toBe(6_000_000n);
    } finally {
      await h.control('unBlacklist', blocked);
    }
  });

  it('an overfunded refund sends everything to the customer and reports what was funded', async () => {
    const paymentId = await paidPayment('30.00', 30_000_000n);
    const created = await refund({ payment_id: paymentId, amount: '10', address: otherWallet });
    const before = await h.balanceOf(otherWallet);
    await fund(created.body.deposit_address, 11_500_001n);
    await workerPasses();
    expect(await h.balanceOf(otherWallet)).toBe(before + 11_500_001n);
    expect(await getRefund(created.body.refund_id)).toMatchObject({
      status: 'refunded',
      amount: '10.00',
      amount_funded: '11.500001',
      amount_sent: '11.500001',
    });
  });

  it('an overpayment is reported and refunded in one call; a fiat refund converts at the locked rate, rounded up', async () => {
    const overpaid = await paidPayment('27.00', 37_000_000n);
    expect(await paymentStatus(overpaid)).toMatchObject({ status: 'paid', amount_overpaid: '10.00' });
    const back = await refund({ payment_id: overpaid, amount: 'overpaid' });
    expect(back.body).toMatchObject({ amount: '10.00', requested_amount: 'overpaid' });
    // The overpayment is refunded: "overpaid" has nothing left, though the price itself could still be refunded.
    expect((await refund({ payment_id: overpaid, amount: 'overpaid' })).body.code).toBe(
      'PAYMENT_NOT_OVERPAID',
    );
    expect((await refund({ payment_id: overpaid, amount: '27' })).status).toBe(201);
    const exact = await paidPayment('5.00', 5_000_000n);
    expect((await refund({ payment_id: exact, amount: 'overpaid' })).body.code).toBe('PAYMENT_NOT_OVERPAID');

    // 10.00 EUR at 1.08 = 10.80 USDC; 3.33 EUR = 3.5964 → 3.60 (never less for the customer).
    const fiat = await paidPayment('10.00', 10_800_000n, 'EUR');
    const part = await refund({ payment_id: fiat, amount: '3.33', currency: 'eur' });
    expect(part.body).toMatchObject({ amount: '3.60', requested_amount: '3.33', requested_currency: 'EUR' });
    expect((await refund({ payment_id: fiat, amount: '1', currency: 'USD' })).body).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'currency',
    });
  });

  it('cancel only before funding; an unclaimed refund expires, and its link is closed', async () => {
    const paymentId = await paidPayment('8.00', 8_000_000n);
    const open = await refund({ payment_id: paymentId, amount: '2' });
    const funded = await refund({ payment_id: paymentId, amount: '2', address: refundWallet });
    await fund(funded.body.deposit_address, 2_000_000n);
    await h.poll();
    // A transfer seen (not final yet) already makes it not cancelable.
    expect(await call('POST', `/payments/api/refunds/${funded.body.refund_id}/cancel/`)).toMatchObject({
      status: 409,
      body: { code: 'REFUND_NOT_CANCELABLE' },
    });
    const canceled = await call('POST', `/payments/api/refunds/${open.body.refund_id}/cancel/`);
    expect(canceled.body.status).toBe('canceled');
    expect((await call('POST', `/payments/api/refunds/${open.body.refund_id}/cancel/`)).body.code).toBe(
      'REFUND_NOT_CANCELABLE',
    );

    const unclaimed = await refund({ payment_id: paymentId, amount: '1' });
    h.clock.advance(CLAIM_TTL_MS - 1);
    expect((await getRefund(unclaimed.body.refund_id)).status).toBe('awaiting_address');
    h.clock.advance(1);
    expect((await getRefund(unclaimed.body.refund_id)).status).toBe('expired');
    await expect(claimRefund(claimDeps, unclaimed.body.refund_id, refundWallet)).rejects.toMatchObject({
      code: 'REFUND_CLOSED',
    });
    const told = await announceRefunds({ refunds: h.stores.refunds, clock: h.clock });
    expect(told).toContain(unclaimed.body.refund_id);
    // Told once: a second pass finds nothing more to tell about it.
    expect(await announceRefunds({ refunds: h.stores.refunds, clock: h.clock })).not.toContain(
      unclaimed.body.refund_id,
    );
  });

  it('is idempotent with a key, and refuses bad input on every endpoint with the error shape', async () => {
    const paymentId = await paidPayment('6.00', 6_000_000n);
    const body = { payment_id: paymentId, amount: '1.00' };
    const once = await refund(body, { 'idempotency-key': 'refund-1' });
    const twice = await refund(body, { 'idempotency-key': 'refund-1' });
    expect(twice.body.refund_id).toBe(once.body.refund_id);
    expect((await refund({ ...body, amount: '2' }, { 'idempotency-key': 'refund-1' })).status).toBe(422);

    const cases: [number, string, Promise<{ status: number; body: Body }>][] = [
      [400, 'VALIDATION_ERROR', refund({ amount: '1' })],
      [400, 'VALIDATION_ERROR', refund({ payment_id: 'nope', amount: '1' })],
      [400, 'VALIDATION_ERROR', refund({ payment_id: paymentId, amount: '-1' })],
      [400, 'VALIDATION_ERROR', refund({ payment_id: paymentId, amount: '0' })],
      [400, 'VALIDATION_ERROR', refund({ payment_id: paymentId, amount: '1.0000001' })],
      [400, 'VALIDATION_ERROR', refund({ payment_id: paymentId, amount: 'all' })],
      [400, 'VALIDATION_ERROR', refund({ payment_id: paymentId, amount: '1', address: '0x1234' })],
      [400, 'VALIDATION_ERROR', refund({ payment_id: paymentId, amount: '1', reason: 'a\u0000b' })],
      [400, 'VALIDATION_ERROR', refund({ payment_id: paymentId, amount: '1', reason: 'x'.repeat(501) })],
      [400, 'VALIDATION_ERROR', refund('[1,2')],
      [400, 'VALIDATION_ERROR', refund([])],
      [404, 'NOT_FOUND', refund({ payment_id: UNKNOWN_ID, amount: '1' })],
      [401, 'UNAUTHORIZED', refund(body, { 'x-api-key': 'sk_live_wrong' })],
      [404, 'NOT_FOUND', call('GET', `/payments/api/refunds/${UNKNOWN_ID}/`)],
      [404, 'NOT_FOUND', call('GET', '/payments/api/refunds/not-a-uuid/')],
      [404, 'NOT_FOUND', call('POST', `/payments/api/refunds/${UNKNOWN_ID}/cancel/`)],
      [400, 'VALIDATION_ERROR', call('GET', '/payments/api/refunds/?payment_id=nope')],
      [400, 'VALIDATION_ERROR', call('GET', '/payments/api/refunds/?limit=0')],
      [400, 'VALIDATION_ERROR', call('GET', '/payments/api/refunds/?cursor=forged.AAAAAAAAAAAAAAAAAAAAAA')],
    ];
    for (const [status, code, pending] of cases) {
      const response = await pending;
      expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
      expect(typeof response.body.error).toBe('string');
    }
  });

  it('tells every step as a signed webhook, verified with standardwebhooks', async () => {
    const deps = {
      webhooks: h.stores.webhooks,
      clock: h.clock,
      logger,
      sender: createWebhookSender({ allowPrivate: true, timeoutMs: 5_000 }),
      config: { retryScheduleMs: [5_000], leaseMs: 60_000 },
    };
    try {
      await dispatchWebhooks(deps);
      while ((await dispatchWebhooks(deps)).attempted > 0);
    } finally {
      await deps.sender.close();
    }
    const bodies = receiver.received.map((r) => verifyAsMerchant(webhookSecret, r) as Body);
    const refundEvents = bodies.filter((b) => String(b.event).startsWith('refund.'));
    const types = new Set(refundEvents.map((b) => b.event));
    for (const type of [
      'refund.created',
      'refund.address_provided',
      'refund.funded',
      'refund.refunded',
      'refund.canceled',
      'refund.expired',
    ])
      expect(types).toContain(type);
    const refunded = refundEvents.find((b) => b.event === 'refund.refunded')!;
    expect(refunded).toMatchObject({ status: 'refunded', txid: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    // Refund deposits are no payments: no payment event ever names a refund.
    const refundIds = new Set(refundEvents.map((b) => b.refund_id));
    for (const body of bodies.filter((b) => String(b.event).startsWith('payment.')))
      expect(refundIds.has(body.payment_id)).toBe(false);
    const paid = bodies.find((b) => b.event === 'payment.paid' && b.amount_overpaid === '10.00');
    expect(paid).toBeDefined();
  });

  it('administrators list refunds by merchant and by payment, and show one, in the API and the CLI', async () => {
    const paymentId = await paidPayment('9.00', 9_000_000n);
    // After every refund of the earlier tests (one may share their last instant): these two are the newest.
    h.clock.advance(1_000);
    const first = (await refund({ payment_id: paymentId, amount: '2.00' })).body.refund_id as string;
    h.clock.advance(1_000);
    const second = (await refund({ payment_id: paymentId, amount: '3.00', address: refundWallet })).body
      .refund_id as string;
    const admin = async (url: string, token = ADMIN_TOKEN) => {
      const response = await adminRequest(app, 'GET', url, undefined, token);
      return { status: response.statusCode, body: response.json() as Body };
    };

    const byPayment = await admin(`/admin/api/refunds/?payment_id=${paymentId}`);
    expect(byPayment.status).toBe(200);
    expect(byPayment.body.refunds.map((r: Body) => [r.refund_id, r.status, r.merchant_id])).toEqual([
      [second, 'awaiting_funds', merchantId],
      [first, 'awaiting_address', merchantId],
    ]);
    const byMerchant = await admin(`/admin/api/refunds/?merchant_id=${merchantId}&limit=1`);
    expect(byMerchant.body.refunds.map((r: Body) => r.refund_id)).toEqual([second]);
    const next = await admin(
      `/admin/api/refunds/?merchant_id=${merchantId}&limit=100&cursor=${byMerchant.body.next_cursor}`,
    );
    // The rest of the merchant's refunds, newest first (the earlier tests' too, whose clock may differ).
    expect(next.body.refunds.map((r: Body) => r.refund_id)).toContain(first);
    expect(next.body.refunds.map((r: Body) => r.refund_id)).not.toContain(second);
    const times = next.body.refunds.map((r: Body) => r.created_at as string);
    expect(times).toEqual([...times].sort().reverse());
    // Every refund of the merchant's live mode, none twice, none of another mode.
    expect(new Set(next.body.refunds.map((r: Body) => r.refund_id)).size).toBe(next.body.refunds.length);
    expect((await admin(`/admin/api/refunds/?merchant_id=${merchantId}&mode=test`)).body.refunds).toEqual([]);
    expect(await admin(`/admin/api/refunds/${second}/`)).toMatchObject({
      status: 200,
      body: {
        refund_id: second,
        merchant_id: merchantId,
        amount: '3.00',
        deposit_address: expect.any(String),
      },
    });
    for (const [url, status, code] of [
      ['/admin/api/refunds/', 400, 'VALIDATION_ERROR'],
      [`/admin/api/refunds/?merchant_id=${merchantId}&mode=prod`, 400, 'VALIDATION_ERROR'],
      [`/admin/api/refunds/?merchant_id=${merchantId}&limit=0`, 400, 'VALIDATION_ERROR'],
      [`/admin/api/refunds/?payment_id=${UNKNOWN_ID}`, 404, 'NOT_FOUND'],
      [`/admin/api/refunds/?payment_id=${paymentId}&merchant_id=someone-else`, 404, 'NOT_FOUND'],
      ['/admin/api/refunds/?merchant_id=nobody', 404, 'NOT_FOUND'],
      [`/admin/api/refunds/${UNKNOWN_ID}/`, 404, 'NOT_FOUND'],
      ['/admin/api/refunds/nope/', 404, 'NOT_FOUND'],
    ] as const)
      expect(await admin(url), url).toMatchObject({ status, body: { code } });
    expect((await admin(`/admin/api/refunds/${second}/`, 'wrong-token')).status).toBe(401);
    // A merchant's key is no admin token.
    const asMerchant = await app.inject({
      method: 'GET',
      url: `/admin/api/refunds/${second}/`,
      headers: { 'x-api-key': apiKey },
    });
    expect(asMerchant.statusCode).toBe(401);

    const env = {
      PAYLINK_DATABASE_URL: h.database.url,
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_CHECKOUT_URL: 'https://pay.example.test',
    };
    const listed = await runCli(['refunds', 'list', '--payment', paymentId], env);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${second}\\s+awaiting_funds\\s+3\\.00 USDC\\s+payment ${paymentId}\\s+fund 3\\.00 USDC to 0x[0-9a-fA-F]{40}$`,
      ),
    );
    expect(lines[1]).toBe(
      `${first}  awaiting_address          2.00 USDC  payment ${paymentId}  claim https://pay.example.test/refunds/${first}`,
    );
    const json = await runCli(['refunds', 'list', '--merchant', merchantId, '--limit', '2', '--json'], env);
    expect(JSON.parse(json.stdout).refunds.map((r: Body) => r.refund_id)).toEqual([second, first]);
    const shown = await runCli(['refunds', 'show', second], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      refund_id: second,
      merchant_id: merchantId,
      status: 'awaiting_funds',
    });
    expect(await runCli(['refunds', 'show', UNKNOWN_ID], env)).toMatchObject({
      code: 2,
      stderr: 'error: Refund not found\n',
    });
    expect(await runCli(['refunds', 'list'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('merchant_id'),
    });
  });
});
