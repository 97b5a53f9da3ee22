import { describe, expect, it } from 'vitest';
import { NO_FUNDING, REFUND_STATUSES, type Refund } from './refund.ts';
import { refundEventBody, refundFields } from './refundEvent.ts';

const CREATED = new Date('2026-11-24T12:00:00.000Z');
const CUSTOMER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

const refund: Refund = {
  id: 'b7a0c4de-0f4e-4c36-9a57-1b2c3d4e5f60',
  merchantId: 'mch_1',
  mode: 'test',
  paymentId: '7d1c3c0e-4b8e-4a53-9d43-0c1f1c2b3a4d',
  amountBaseUnits: 3_600_000n,
  requestedAmount: '3.33',
  requestedCurrency: 'EUR',
  reason: 'one item returned',
  address: CUSTOMER,
  addressSource: 'customer',
  addressGivenAt: CREATED,
  claimExpiresAt: new Date('2026-12-24T12:00:00.000Z'),
  canceledAt: null,
  announcedStatus: 'awaiting_funds',
  createdAt: CREATED,
  updatedAt: CREATED,
};

const funding = {
  ...NO_FUNDING,
  fundedBaseUnits: 4_000_000n,
  seenBaseUnits: true,
  sentBaseUnits: 1_500_000n,
  txid: '0xabc',
  delayedReason: 'Blacklistable: account is blacklisted',
};

describe('what the merchant is told of a refund', () => {
  it('states its amounts exactly, as asked and as owed, and whose it is', () => {
    expect(refundFields(refund, funding, 'processing')).toEqual({
      refund_id: refund.id,
      payment_id: refund.paymentId,
      status: 'processing',
      amount: '3.60',
      currency: 'USDC',
      requested_amount: '3.33',
      requested_currency: 'EUR',
      reason: 'one item returned',
      address: CUSTOMER,
      address_source: 'customer',
      amount_funded: '4.00',
      amount_sent: '1.50',
      txid: '0xabc',
      payout_delayed_reason: 'Blacklistable: account is blacklisted',
      created_at: '2026-11-24T12:00:00.000Z',
      livemode: false,
    });
    expect(refundFields({ ...refund, mode: 'live' }, NO_FUNDING, 'awaiting_funds').livemode).toBe(true);
  });

  it('gives a reason for waiting only while the refund is being sent', () => {
    const withReason = REFUND_STATUSES.filter(
      (status) => refundFields(refund, funding, status).payout_delayed_reason !== null,
    );
    expect(withReason).toEqual(['processing']);
  });

  it("a webhook's body: the refund, with the event's own id, type and time", () => {
    const at = new Date('2026-11-25T08:30:00.000Z');
    const body = refundEventBody('evt_1', 'refund.refunded', refundFields(refund, funding, 'refunded'), at);
    expect(body).toMatchObject({
      id: 'evt_1',
      event: 'refund.refunded',
      created_at: '2026-11-25T08:30:00.000Z',
      refund_created_at: '2026-11-24T12:00:00.000Z',
      refund_id: refund.id,
      status: 'refunded',
      txid: '0xabc',
      payout_delayed_reason: null,
    });
  });
});
