import type { Scene } from './scene.ts';

/** Who looks at a page: a customer (the checkout), nobody signed in, a merchant's user, the operator. */
export type Viewer = 'customer' | 'visitor' | 'merchant' | 'operator';

/** One page of the product as a screenshot shows it, at each of its widths. */
export interface ScreenshotPage {
  /** The file's name: `docs/screenshots/<name>-<width>.png`. */
  readonly name: string;
  /** The server's route it shows (as Fastify knows it), for the test that every page route has a screenshot. */
  readonly route: string;
  readonly viewer: Viewer;
  /** The widths (CSS px) it is shown at. */
  readonly widths: readonly number[];
  /** Its path on its server (the checkout's for a customer, the API's for the others), from the scene. */
  readonly path: (scene: Scene) => string;
}

/** A desktop's width and a phone's. */
export const DESKTOP_AND_PHONE = [1280, 390] as const;
/** A tablet's width and a phone's: the point of sale's devices. */
export const TABLET_AND_PHONE = [768, 390] as const;

const page = (
  name: string,
  route: string,
  viewer: Viewer,
  path: (scene: Scene) => string = () => route,
  widths: readonly number[] = DESKTOP_AND_PHONE,
): ScreenshotPage => ({ name, route, viewer, widths, path });

/**
 * Every page of the product, in the order they are taken. A new page is one line here (a tablet's width is
 * `[768, 390]`); the test in test/repository/screenshotPages.test.ts fails while a page route has none.
 */
export const PAGES: readonly ScreenshotPage[] = [
  page('checkout-pending', '/pay/:id', 'customer', (s) => `/pay/${s.payments.pending}`),
  page('checkout-paid', '/pay/:id', 'customer', (s) => `/pay/${s.payments.paid}`),
  page('checkout-overpaid', '/pay/:id', 'customer', (s) => `/pay/${s.payments.overpaid}`),
  page('checkout-donation-paid', '/pay/:id', 'customer', (s) => `/pay/${s.payments.donation}`),
  page('checkout-expired', '/pay/:id', 'customer', (s) => `/pay/${s.payments.expired}`),
  page('link-fixed-price', '/l/:id', 'customer', (s) => `/l/${s.links.ticket}`),
  page('link-donation', '/l/:id', 'customer', (s) => `/l/${s.links.donation}`),
  page('receipt', '/receipts/:token', 'customer', (s) => `/receipts/${s.receipts.paid}`),
  page('receipt-overpaid', '/receipts/:token', 'customer', (s) => `/receipts/${s.receipts.overpaid}`),
  page('refund-claim', '/refunds/:id', 'customer', (s) => `/refunds/${s.refund}`),
  page('subscribe', '/subscribe/:planId', 'customer', (s) => `/subscribe/${s.subscriptions.plan}`),
  page(
    'subscription-portal',
    '/subscriptions/:token',
    'customer',
    (s) => `/subscriptions/${s.subscriptions.portalToken}`,
  ),
  page('dashboard-sign-in', '/dashboard/login', 'visitor'),
  page('dashboard-home', '/dashboard/home', 'merchant'),
  page('dashboard-payments', '/dashboard/payments', 'merchant'),
  page(
    'dashboard-payment',
    '/dashboard/payments/:id',
    'merchant',
    (s) => `/dashboard/payments/${s.payments.paid}`,
  ),
  page('dashboard-new-payment', '/dashboard/payments/new', 'merchant'),
  page('dashboard-brand', '/dashboard/brand', 'merchant'),
  page(
    'dashboard-payment-link',
    '/dashboard/payments/:id/link',
    'merchant',
    (s) => `/dashboard/payments/${s.payments.pending}/link`,
  ),
  page('dashboard-links', '/dashboard/links', 'merchant'),
  page('dashboard-link', '/dashboard/links/:id', 'merchant', (s) => `/dashboard/links/${s.links.donation}`),
  page('dashboard-new-link', '/dashboard/links/new', 'merchant'),
  page(
    'dashboard-link-edit',
    '/dashboard/links/:id/edit',
    'merchant',
    (s) => `/dashboard/links/${s.links.ticket}/edit`,
  ),
  page('dashboard-subscriptions', '/dashboard/subscriptions', 'merchant'),
  page(
    'dashboard-subscription',
    '/dashboard/subscriptions/:id',
    'merchant',
    (s) => `/dashboard/subscriptions/${s.subscriptions.subscription}`,
  ),
  page('dashboard-subscription-plans', '/dashboard/subscriptions/plans', 'merchant'),
  page('pos', '/dashboard/pos', 'merchant', undefined, TABLET_AND_PHONE),
  page(
    'pos-sale',
    '/dashboard/pos/sales/:id',
    'merchant',
    (s) => `/dashboard/pos/sales/${s.payments.posSale}`,
    TABLET_AND_PHONE,
  ),
  page('pos-catalogue', '/dashboard/pos/catalogue', 'merchant', undefined, TABLET_AND_PHONE),
  page('dashboard-developers', '/dashboard/developers', 'merchant'),
  page('dashboard-webhook-endpoints', '/dashboard/developers/webhooks', 'merchant'),
  page('dashboard-security', '/dashboard/security', 'merchant'),
  page('operator-merchants', '/dashboard/merchants', 'operator'),
  page(
    'operator-merchant',
    '/dashboard/merchants/:id',
    'operator',
    (s) => `/dashboard/merchants/${s.merchantId}`,
  ),
  page('operator-new-merchant', '/dashboard/merchants/new', 'operator'),
  page('operator-payouts', '/dashboard/payouts', 'operator'),
  page('operator-subscriptions', '/dashboard/renewals', 'operator'),
  page('operator-webhooks', '/dashboard/webhooks', 'operator'),
  page('operator-health', '/dashboard/health', 'operator'),
];
