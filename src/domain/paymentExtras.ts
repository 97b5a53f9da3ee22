import { checkEvery } from './errors.ts';
import { type Metadata, parseMetadata } from './metadata.ts';
import { optionalRedirectUrl } from './redirectUrl.ts';

/**
 * What a payment carries besides its price and its customer, as its creator gives it: where the payer's browser
 * goes after paying or canceling, and the merchant's metadata. A reusable link holds the same three and passes
 * them on to every payment made through it.
 */
export interface PaymentExtrasInput {
  readonly successUrl?: string | undefined;
  readonly cancelUrl?: string | undefined;
  /** As parsed from JSON: checked here (domain/metadata.ts). */
  readonly metadata?: unknown;
}

/** The extras, each checked; null where none was given. */
export interface PaymentExtras {
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  readonly metadata: Metadata | null;
}

/**
 * The extras, each checked, all that are wrong named at once (`success_url`, `cancel_url`, `metadata`, in that
 * order): the last fields of a payment's create and of a link's.
 */
export function parsePaymentExtras(
  input: PaymentExtrasInput,
  options: { readonly allowInsecure: boolean },
): PaymentExtras {
  const [successUrl, cancelUrl, metadata] = checkEvery<[string | null, string | null, Metadata | null]>([
    () => optionalRedirectUrl('success_url', input.successUrl, options),
    () => optionalRedirectUrl('cancel_url', input.cancelUrl, options),
    () => parseMetadata(input.metadata),
  ]);
  return { successUrl, cancelUrl, metadata };
}

/** A link's extras as the input of a payment made through it. */
export function extrasInputOf(extras: PaymentExtras): PaymentExtrasInput {
  return {
    successUrl: extras.successUrl ?? undefined,
    cancelUrl: extras.cancelUrl ?? undefined,
    metadata: extras.metadata ?? undefined,
  };
}
