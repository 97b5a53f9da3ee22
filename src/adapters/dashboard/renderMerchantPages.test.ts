import { describe, expect, it } from 'vitest';
import { testMerchant } from '../../../test/fakes/merchantFixture.ts';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import type { WebhookEventWithAttempts } from '../../app/webhooks/listWebhookEvents.ts';
import { DASHBOARD_TEXT } from './messages/index.ts';
import { renderDevelopers } from './renderMerchantPages.ts';

const merchant = {
  user: { email: 'shop@example.com', role: 'merchant', merchantId: 'mch_1' },
  session: { csrfToken: 'csrf' },
} as unknown as SignedIn;

const delivered = (
  id: string,
  timeline: { paymentId: string | null; subscriptionId: string | null },
): WebhookEventWithAttempts => ({
  event: {
    id,
    ...timeline,
    merchantId: 'mch_1',
    type: timeline.paymentId ? 'payment.paid' : 'subscription.created',
    payload: '{}',
    createdAt: new Date('2027-01-31T10:00:00.000Z'),
    deliveryStatus: 'delivered',
    attemptCount: 1,
    nextAttemptAt: null,
    deliveredAt: new Date('2027-01-31T10:00:01.000Z'),
  },
  attempts: [],
  endpointDeliveries: [],
});

describe('the developers page’s last deliveries', () => {
  it('links each event to its timeline: its payment, or its subscription when it has no payment', () => {
    const page = renderDevelopers({
      signedIn: merchant,
      ctx: { assets: { stylesheet: 's.css', script: 's.js' }, lang: 'en', t: DASHBOARD_TEXT.en },
      merchant: testMerchant(),
      keys: [],
      canTest: false,
      deliveries: [
        delivered('evt_paid', { paymentId: 'pay-1', subscriptionId: null }),
        delivered('evt_created', { paymentId: null, subscriptionId: 'sub-1' }),
      ],
    });
    expect(page).toContain('<a href="/dashboard/payments/pay-1"><code>pay-1</code></a>');
    expect(page).toContain('<a href="/dashboard/subscriptions/sub-1"><code>sub-1</code></a>');
    expect(page).not.toContain('/dashboard/payments/null');
    expect(page).not.toContain('/dashboard/payments/"');
  });
});
