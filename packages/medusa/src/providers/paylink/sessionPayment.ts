import type { InitiatePaymentInput } from '@medusajs/framework/types';
import { MedusaError } from '@medusajs/framework/utils';
import { decimalText, sameAmount } from './amounts';
import { sdkErrorCode, shopOwnerError } from './errors';
import { fillUrl, type PaylinkOptions } from './options';
import type { CreatedPayment, PaylinkClient } from './sdk';
import type { PaylinkPaymentState } from './statuses';

/** What a session keeps in Medusa (`payment_session.data`), shown to the storefront and the admin. */
export interface SessionData {
  readonly payment_id: string;
  /** Redirect the shopper here (a full page, never an iframe). */
  readonly payment_url: string;
  readonly order_id: string;
  readonly session_id: string;
  readonly amount: string;
  readonly currency: string;
  readonly usdc_amount: string;
  readonly expires_at: string;
  readonly paylink_status: PaylinkPaymentState['status'];
  readonly idempotency_key: string;
  readonly refunds?: unknown[];
}

type Resolved = SessionData & { readonly state: PaylinkPaymentState };

/**
 * The Paylink payment for a session: the current one while it is for the same amount and can still be paid,
 * otherwise a new one. The Idempotency-Key is the cart, amount and currency (plus the expired payment it
 * replaces), so a double click, a retry or a second server makes one payment, never two.
 */
export async function sessionPayment(
  client: PaylinkClient,
  options: PaylinkOptions,
  input: InitiatePaymentInput,
  current: SessionData | undefined,
): Promise<Resolved> {
  const amount = decimalText(input.amount);
  if (amount === undefined || amount.startsWith('-') || amount === '0') {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      'Paylink: the cart total must be a positive amount',
    );
  }
  const currency = input.currency_code.toUpperCase();
  const sessionId = String(input.data?.session_id ?? current?.session_id ?? '');
  // The storefront passes the cart id in the session's data; without it the session itself is the order.
  const cartId = String(input.data?.cart_id ?? current?.order_id ?? sessionId);
  let replacing: string | undefined;
  if (current?.payment_id && sameAmount(current.amount, amount) && current.currency === currency) {
    const now = await ask(options, 'asking for the payment status', () =>
      client.getPayment(current.payment_id),
    );
    if (now.status !== 'expired' && now.status !== 'failed') {
      return { ...current, paylink_status: now.status, state: now };
    }
    replacing = current.payment_id;
  }
  const base = `medusa:${cartId}:${currency}:${amount}`;
  const key = replacing ? `${base}:after:${replacing}` : base;
  const email = input.context?.customer?.email ?? input.data?.email;
  const body = (session: string) => ({
    amount,
    currency,
    order_id: cartId,
    ...(typeof email === 'string' && email ? { customer_email: email } : {}),
    success_url: fillUrl(options.successUrl, { cart_id: cartId, session_id: session }),
    cancel_url: fillUrl(options.cancelUrl, { cart_id: cartId, session_id: session }),
    ...(options.webhookUrl ? { webhook_url: options.webhookUrl } : {}),
    metadata: { cart_id: cartId, session_id: session, idempotency_key: key },
  });
  let created: CreatedPayment;
  try {
    created = await client.createPayment(body(sessionId), { idempotencyKey: key });
  } catch (error) {
    if (sdkErrorCode(error) !== 'IDEMPOTENCY_KEY_REUSED') {
      throw shopOwnerError(error, options.apiUrl, 'creating the payment');
    }
    created = await firstOfKey(client, options, cartId, key, body);
  }
  const d = created.details;
  return {
    payment_id: created.payment_id,
    payment_url: created.payment_url,
    order_id: cartId,
    session_id: sessionId,
    amount: d.amount,
    currency: d.currency,
    usdc_amount: d.usdc_amount,
    expires_at: d.expires_at,
    paylink_status: 'pending',
    idempotency_key: key,
    state: { status: 'pending', usdc_amount: d.usdc_amount },
  };
}

/**
 * Another session of the same cart made the payment under this key first (a double click: Medusa makes a
 * session per click). Its request, found by the key kept in its metadata, is sent again as it was, which
 * Paylink answers with that same payment.
 */
async function firstOfKey(
  client: PaylinkClient,
  options: PaylinkOptions,
  cartId: string,
  key: string,
  body: (sessionId: string) => Parameters<PaylinkClient['createPayment']>[0],
): Promise<CreatedPayment> {
  const page = await ask(options, 'finding the payment made for this cart', () =>
    client.listPayments({ order_id: cartId, limit: 100 }),
  );
  const first = page.payments.find((p) => p.metadata?.idempotency_key === key);
  const firstSession = first?.metadata?.session_id;
  if (firstSession === undefined) {
    throw new MedusaError(
      MedusaError.Types.CONFLICT,
      'Paylink: a payment for this cart is being created by another request; try again in a moment',
    );
  }
  return ask(options, 'creating the payment', () =>
    client.createPayment(body(firstSession), { idempotencyKey: key }),
  );
}

async function ask<T>(options: PaylinkOptions, doing: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw shopOwnerError(error, options.apiUrl, doing);
  }
}

/** The session data as stored: the Paylink state is read again whenever it matters. */
export function toSessionData(resolved: Resolved): Record<string, unknown> {
  const { state: _state, ...data } = resolved;
  return data;
}
