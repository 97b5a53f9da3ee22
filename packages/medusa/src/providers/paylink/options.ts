import { MedusaError } from '@medusajs/framework/utils';

/** The provider's options in medusa-config (`modules` → payment → providers → options). */
export interface PaylinkOptions {
  /** Paylink's API address, e.g. https://api.paylink.example (the sandbox: http://127.0.0.1:3000). */
  readonly apiUrl: string;
  /** A restricted key rk_live_… / rk_test_… (or the secret sk_…), from the environment (never commit it). */
  readonly apiKey: string;
  /** whsec_… of the Paylink account: webhooks not signed with it are ignored. Several during a rotation. */
  readonly webhookSecret: string | readonly string[];
  /** Where the shopper goes once paid; `{cart_id}` and `{session_id}` are filled in. */
  readonly successUrl: string;
  /** Where the shopper goes on giving up (back to the cart); same placeholders. */
  readonly cancelUrl: string;
  /** Medusa's webhook route for this provider, sent with each payment; the account's URL when unset. */
  readonly webhookUrl?: string;
  /** Expect a test key (rk_test_, sk_test_): no goods may ship for test payments, so a live key here is refused, and back. */
  readonly testMode?: boolean;
  /** Seconds a webhook's timestamp may be from now (default 300). */
  readonly webhookToleranceSeconds?: number;
}

function invalid(message: string): never {
  throw new MedusaError(MedusaError.Types.INVALID_DATA, `Paylink payment provider: ${message}`);
}

function url(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') invalid(`the option ${name} is required`);
  try {
    new URL(value.replaceAll('{cart_id}', 'x').replaceAll('{session_id}', 'x'));
  } catch {
    invalid(`the option ${name} must be an absolute URL, got "${value}"`);
  }
  return value;
}

/** The options checked at boot, each problem named with what to set. */
export function validateOptions(options: Record<string, unknown>): PaylinkOptions {
  const apiKey = options.apiKey;
  if (typeof apiKey !== 'string' || !/^[sr]k_(live|test)_\S+$/.test(apiKey)) {
    invalid(
      'apiKey must be a Paylink API key (a restricted rk_live_… / rk_test_…, or sk_live_… / sk_test_…); set it from the environment',
    );
  }
  const testMode = options.testMode === true;
  if (testMode !== /^[sr]k_test_/.test(apiKey)) {
    invalid(
      testMode
        ? 'testMode is on but apiKey is a live key: use a test key (rk_test_ or sk_test_), or turn testMode off'
        : 'apiKey is a test key (sk_test_ or rk_test_) but testMode is off: set testMode: true, or use a live key',
    );
  }
  const secrets = options.webhookSecret;
  const list = Array.isArray(secrets) ? secrets : [secrets];
  if (list.length === 0 || !list.every((s) => typeof s === 'string' && s.startsWith('whsec_'))) {
    invalid("webhookSecret must be the account's webhook secret (whsec_…)");
  }
  const tolerance = options.webhookToleranceSeconds;
  if (tolerance !== undefined && (typeof tolerance !== 'number' || !(tolerance > 0))) {
    invalid('webhookToleranceSeconds must be a positive number of seconds');
  }
  return {
    apiUrl: url('apiUrl', options.apiUrl),
    apiKey,
    webhookSecret: list as string[],
    successUrl: url('successUrl', options.successUrl),
    cancelUrl: url('cancelUrl', options.cancelUrl),
    ...(options.webhookUrl === undefined ? {} : { webhookUrl: url('webhookUrl', options.webhookUrl) }),
    testMode,
    ...(tolerance === undefined ? {} : { webhookToleranceSeconds: tolerance as number }),
  };
}

/** A URL option with the session's ids filled in. */
export function fillUrl(template: string, ids: { cart_id: string; session_id: string }): string {
  return template
    .replaceAll('{cart_id}', encodeURIComponent(ids.cart_id))
    .replaceAll('{session_id}', encodeURIComponent(ids.session_id));
}
