import Database from 'better-sqlite3';
import { runCli } from '../../test/helpers/cli.ts';
import { eventually } from '../../test/helpers/net.ts';
import type { SandboxProcess } from '../../test/helpers/sandboxProcess.ts';

/** Where the demo's payments send their customers: validated, never fetched (the pages only link to it). */
export const SHOP_URL = 'https://shop.example';

/** A dashboard user of the sandbox, as its banner prints them. */
export interface DemoUser {
  readonly email: string;
  readonly password: string;
}

/** The demo data the pages show: what each page's path is made of. */
export interface Scene {
  readonly apiUrl: string;
  readonly checkoutUrl: string;
  readonly merchant: DemoUser;
  readonly operator: DemoUser;
  readonly merchantId: string;
  readonly payments: {
    readonly pending: string;
    readonly paid: string;
    readonly overpaid: string;
    readonly donation: string;
    readonly expired: string;
    /** A sale rung up at the counter, waiting for the customer's scan. */
    readonly posSale: string;
  };
  readonly receipts: { readonly paid: string; readonly overpaid: string };
  readonly links: { readonly ticket: string; readonly donation: string };
  readonly refund: string;
  /** A plan, and a subscription to it in its trial (nothing billed yet), with its portal's token. */
  readonly subscriptions: {
    readonly plan: string;
    readonly subscription: string;
    readonly portalToken: string;
  };
}

/**
 * How long a payment made without `expires_in` stays payable on the screenshots' sandbox: the expired payment
 * is made first and runs out while the others are made and paid; every other one asks for a day.
 */
export const SCENE_PAYMENT_TTL = '30s';
const A_DAY = 86_400;

/**
 * Makes the demo data on a fresh sandbox, always in the same order and with the same amounts, through the API
 * and `paylink sandbox pay` as a merchant and a customer would: an expired payment, a pending one, one paid
 * (with a receipt and a refund waiting for the customer's address), one overpaid after it was paid, a fixed-price
 * link and a donation link, and a donation paid through it. Each step waits for the last one's outcome.
 */
export async function makeScene(sandbox: SandboxProcess): Promise<Scene> {
  const api = apiClient(sandbox);
  const expired = await api.createPayment({ amount: '12.00', currency: 'EUR', order_id: 'A-1000' });
  // Expired before anything else happens, so its event comes first in the merchant's deliveries on every run.
  await api.waitForStatus(expired, 'expired');
  const pending = await api.createPayment({
    amount: '25.00',
    currency: 'EUR',
    order_id: 'A-1001',
    customer_email: 'anna@example.com',
    expires_in: A_DAY,
  });
  const paid = await api.createPayment({
    amount: '42.00',
    currency: 'EUR',
    order_id: 'A-1002',
    customer_email: 'ben@example.com',
    expires_in: A_DAY,
  });
  const overpaid = await api.createPayment({
    amount: '10.00',
    currency: 'EUR',
    order_id: 'A-1003',
    customer_email: 'chloe@example.com',
    expires_in: A_DAY,
  });
  const ticket = await api.createLink({
    title: 'Concert ticket',
    description: 'Saturday evening, doors open an hour before. Show the receipt at the entrance.',
    price_type: 'fixed',
    currency: 'EUR',
    amount: '15.00',
    max_quantity: 4,
  });
  const donationLink = await api.createLink({
    title: 'Support the community garden',
    description: 'Seeds, tools and water for the season.',
    price_type: 'open',
    currency: 'EUR',
    min_amount: '1',
    max_amount: '500',
    suggested_amounts: ['5', '10', '20'],
  });
  const donation = await api.payLink(donationLink, { amount: '10.00', customer_email: 'dan@example.com' });

  // One at a time, each to its payout, so that their webhooks (listed on the developers page) come in the same
  // order on every run.
  for (const id of [paid, overpaid, donation]) {
    await pay(sandbox, id);
    await api.waitFor(id, (status) => status.status === 'paid' && status.payout_status === 'sent');
  }
  const refund = await api.createRefund({ payment_id: paid, amount: '5.00', reason: 'One item returned' });
  // An overpayment made after the payment was paid, last: its receipt lists both transfers.
  const firstPayout = (await api.status(overpaid)).payout_txid;
  await pay(sandbox, overpaid, '2.00');
  await api.waitFor(
    overpaid,
    (status) => status.amount_overpaid === '2.00' && status.payout_txid !== firstPayout,
  );
  // Last, so the payments before it keep their places: a counter sale (the point of sale marks its payments so).
  const posSale = await api.createPayment({
    amount: '7.50',
    currency: 'EUR',
    title: 'Flat white, Croissant',
    line_items: [
      { name: 'Flat white', quantity: 2, unit_price: '3.50' },
      { name: 'Croissant', quantity: 1, unit_price: '0.50' },
    ],
    metadata: { channel: 'pos' },
    expires_in: A_DAY,
  });
  // A plan with a trial, so that the subscription bills nothing yet and every payment page above keeps its place.
  const plan = await api.call('POST', '/payments/api/plans/', {
    name: 'Coffee club',
    description: 'A bag of freshly roasted beans every month.',
    amount: '9.90',
    currency: 'EUR',
    interval: 'month',
    trial_days: 14,
  });
  const subscription = await api.call('POST', '/payments/api/subscriptions/', {
    plan_id: plan.plan_id,
    customer_email: 'eva@example.com',
  });
  const receipt = receiptTokens(sandbox);
  const users = demoUsers(sandbox.output());
  return {
    apiUrl: sandbox.apiUrl,
    checkoutUrl: sandbox.checkoutUrl,
    ...users,
    merchantId: sandbox.merchantId,
    payments: { pending, paid, overpaid, donation, expired, posSale },
    receipts: { paid: await receipt(paid), overpaid: await receipt(overpaid) },
    links: { ticket, donation: donationLink },
    refund,
    subscriptions: {
      plan: String(plan.plan_id),
      subscription: String(subscription.subscription_id),
      portalToken: portalToken(sandbox, String(subscription.subscription_id)),
    },
  };
}

type Status = Record<string, unknown>;

function apiClient(sandbox: SandboxProcess) {
  const call = async (method: string, path: string, body?: unknown): Promise<Status> => {
    const response = await fetch(`${sandbox.apiUrl}${path}`, {
      method,
      headers: { 'x-api-key': sandbox.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const answer = (await response.json()) as Status;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const status = (id: string) => call('GET', `/payments/api/status/${id}/`);
  const waitFor = async (id: string, done: (status: Status) => boolean) => {
    const last = await eventually(() => status(id), done);
    if (!done(last)) throw new Error(`payment ${id} never got there: ${JSON.stringify(last)}`);
  };
  return {
    createPayment: async (body: Status) =>
      String((await call('POST', '/payments/api/create/', body)).payment_id),
    createLink: async (body: Status) => String((await call('POST', '/payments/api/links/', body)).link_id),
    payLink: async (link: string, body: Status) =>
      String((await call('POST', `/payments/api/links/${link}/payments/`, body)).payment_id),
    createRefund: async (body: Status) =>
      String((await call('POST', '/payments/api/refunds/', body)).refund_id),
    call,
    status,
    waitFor,
    waitForStatus: (id: string, wanted: string) => waitFor(id, (s) => s.status === wanted),
  };
}

/** A plain USDC transfer from the sandbox's funded customer: what is due, or `amount`. */
async function pay(sandbox: SandboxProcess, paymentId: string, amount?: string): Promise<void> {
  const sent = await runCli(
    ['sandbox', 'pay', paymentId, ...(amount ? ['--amount', amount] : [])],
    sandbox.env,
  );
  if (sent.code !== 0) throw new Error(`sandbox pay ${paymentId}: ${sent.stderr}`);
}

/** The receipt page's token of a paid payment, read from the sandbox's database once its receipt is queued. */
function receiptTokens(sandbox: SandboxProcess) {
  const file = sandbox.env.PAYLINK_DATABASE_URL!.slice('sqlite:'.length);
  return async (paymentId: string): Promise<string> => {
    const read = () => {
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        const row = db.prepare('select receipt_token from payments where id = ?').get(paymentId) as
          | { receipt_token: string | null }
          | undefined;
        return row?.receipt_token ?? null;
      } finally {
        db.close();
      }
    };
    const token = await eventually(
      async () => read(),
      (value) => value !== null,
    );
    if (token === null) throw new Error(`payment ${paymentId} has no receipt`);
    return token;
  };
}

/** A subscription's portal token, read from the sandbox's database (the customer's e-mails carry it). */
function portalToken(sandbox: SandboxProcess, subscriptionId: string): string {
  const db = new Database(sandbox.env.PAYLINK_DATABASE_URL!.slice('sqlite:'.length), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    const row = db.prepare('select portal_token from subscriptions where id = ?').get(subscriptionId) as
      | { portal_token: string | null }
      | undefined;
    if (!row?.portal_token) throw new Error(`subscription ${subscriptionId} has no portal token`);
    return row.portal_token;
  } finally {
    db.close();
  }
}

/** The demo merchant's and the operator's sign-in, as the sandbox's banner prints them. */
function demoUsers(banner: string): { merchant: DemoUser; operator: DemoUser } {
  const user = (role: string): DemoUser => {
    const found = new RegExp(`^\\s+${role}\\s+(\\S+)\\s+password (\\S+)$`, 'm').exec(banner);
    if (!found) throw new Error(`the sandbox's banner names no ${role}`);
    return { email: found[1]!, password: found[2]! };
  };
  return { merchant: user('merchant'), operator: user('operator') };
}
