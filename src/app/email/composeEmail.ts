import { randomUUID } from 'node:crypto';
import {
  findRemoteContent,
  isEmailAddress,
  isLanguageTag,
  MAX_BODY_LENGTH,
  MAX_SUBJECT_LENGTH,
} from '../../domain/email.ts';
import { ValidationError } from '../../domain/errors.ts';
import { customerLanguageOf } from '../../domain/language.ts';
import type { Payment } from '../../domain/payment.ts';
import type { EmailMessage, EmailTemplate } from './ports.ts';

export interface EmailRequest<Data> {
  readonly template: EmailTemplate<Data>;
  readonly data: Data;
  readonly merchantId: string;
  readonly paymentId?: string | null | undefined;
  readonly refundId?: string | null | undefined;
  /** The address the merchant gave (a payment's `customer_email`): the only kind of recipient there is. */
  readonly recipient: string;
  /** The request field the recipient came from, named in the error if it is refused. */
  readonly recipientField?: string | undefined;
  /** The reader's language where known (the payer's, the payment's); the template falls back to its first. */
  readonly language?: string | undefined;
}

/**
 * Renders a message and checks it, ready to be queued: a message is stored as it will be sent, so that a
 * restart, a template change or a new release never changes what a customer was promised. `id` names the row
 * and the Message-ID header (`<id@domain>`, the domain of PAYLINK_MAIL_FROM).
 *
 * Throws a `ValidationError` on `recipientField` for a recipient that is not a plain address (a 400 with the
 * spec's error shape at the edge); callers should have refused it when the merchant gave it, so this is a last
 * guard. A template that renders something unsendable is our bug: a plain Error.
 */
export function composeEmail<Data>(
  request: EmailRequest<Data>,
  context: { readonly id: string; readonly messageDomain: string; readonly now: Date },
): EmailMessage {
  const recipient = request.recipient.trim();
  if (!isEmailAddress(recipient))
    throw new ValidationError(request.recipientField ?? 'recipient', 'must be an e-mail address');
  const { template } = request;
  const language =
    request.language !== undefined && template.languages.includes(request.language)
      ? request.language
      : template.languages[0];
  if (language === undefined || !isLanguageTag(language))
    throw new Error(`template ${template.kind} has no language to render in`);
  const rendered = template.render(request.data, language);
  // A template bug is ours, not the caller's: plain Errors, which the API hides as 500s and the log shows.
  if (rendered.subject.length === 0 || rendered.subject.length > MAX_SUBJECT_LENGTH)
    throw new Error(`template ${template.kind} rendered a subject of ${rendered.subject.length} characters`);
  // A line break in a subject would start another header.
  if (/[\r\n]/.test(rendered.subject))
    throw new Error(`template ${template.kind} rendered a multi-line subject`);
  for (const [part, body] of [
    ['text', rendered.text],
    ['html', rendered.html],
  ] as const) {
    if (body.length === 0 || body.length > MAX_BODY_LENGTH)
      throw new Error(`template ${template.kind} rendered a ${part} body of ${body.length} characters`);
  }
  const remote = findRemoteContent(rendered.html);
  if (remote !== undefined)
    throw new Error(
      `template ${template.kind} rendered remote content (${remote}): no e-mail loads anything`,
    );
  return {
    id: context.id,
    kind: template.kind,
    merchantId: request.merchantId,
    paymentId: request.paymentId ?? null,
    refundId: request.refundId ?? null,
    recipient,
    language,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    messageId: `<${context.id}@${context.messageDomain}>`,
    createdAt: context.now,
  };
}

/**
 * Whether a message can be written to the payment's customer: an address, and one `composeEmail` accepts. A
 * payment created before the create checked addresses that way (decision 0043) may hold one it refuses: a
 * receipt or a refund notice then skips it, rather than throw inside the watcher's or the expirer's transaction
 * and stop that job at the payment for good.
 */
export function hasWritableAddress(payment: Pick<Payment, 'customerEmail'>): boolean {
  return payment.customerEmail !== null && isEmailAddress(payment.customerEmail.trim());
}

/**
 * An e-mail to a payment's customer, the one kind the service writes: to its `customer_email`, in the
 * customer's language (customerLanguageOf), under a fresh message id. The payment must have an address.
 */
export function emailToCustomer<Data>(
  template: EmailTemplate<Data>,
  data: Data,
  payment: Pick<Payment, 'id' | 'merchantId' | 'customerEmail' | 'customerLanguage' | 'payerLanguage'>,
  context: { readonly messageDomain: string; readonly now: Date; readonly refundId?: string },
): EmailMessage {
  if (payment.customerEmail === null)
    throw new Error(`payment ${payment.id} has no customer_email to write to`);
  return composeEmail<Data>(
    {
      template,
      data,
      merchantId: payment.merchantId,
      paymentId: payment.id,
      ...(context.refundId === undefined ? {} : { refundId: context.refundId }),
      recipient: payment.customerEmail,
      recipientField: 'customer_email',
      language: customerLanguageOf(payment),
    },
    { id: randomUUID(), messageDomain: context.messageDomain, now: context.now },
  );
}
