import { EMAIL_STATUSES, type EmailStatus } from '../../domain/email.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { EmailRecord, EmailStore } from './ports.ts';

/** The e-mail log: each message as queued, and its fate. Operators only (CLI); it holds customers' addresses. */
const DEFAULT_LIMIT = 50;
export const MAX_EMAIL_LIMIT = 100;

export class EmailNotFoundError extends PaylinkError {
  constructor() {
    super('NOT_FOUND', 'E-mail not found');
  }
}

export interface EmailQuery {
  readonly merchantId?: string | undefined;
  readonly paymentId?: string | undefined;
  /** As typed by the caller; checked here. */
  readonly status?: string | undefined;
  readonly limit?: number | undefined;
}

/** Newest first. */
export async function listEmails(
  deps: { readonly emails: EmailStore },
  query: EmailQuery,
): Promise<EmailRecord[]> {
  let status: EmailStatus | undefined;
  if (query.status !== undefined && query.status !== '') {
    if (!(EMAIL_STATUSES as readonly string[]).includes(query.status))
      throw new ValidationError('status', `must be one of ${EMAIL_STATUSES.join(', ')}`);
    status = query.status as EmailStatus;
  }
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_EMAIL_LIMIT)
    throw new ValidationError('limit', `must be an integer from 1 to ${MAX_EMAIL_LIMIT}`);
  return deps.emails.list({
    merchantId: query.merchantId,
    paymentId: query.paymentId?.toLowerCase(),
    status,
    limit,
  });
}

export async function getEmail(deps: { readonly emails: EmailStore }, id: string): Promise<EmailRecord> {
  const found = await deps.emails.find(id);
  if (!found) throw new EmailNotFoundError();
  return found;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** The JSON view of a message; `withBodies` adds what the customer read. */
export function describeEmail(record: EmailRecord, withBodies = false) {
  return {
    id: record.id,
    kind: record.kind,
    merchant_id: record.merchantId,
    payment_id: record.paymentId,
    refund_id: record.refundId,
    to: record.recipient,
    language: record.language,
    subject: record.subject,
    status: record.status,
    attempt_count: record.attemptCount,
    next_attempt_at: iso(record.nextAttemptAt),
    last_error: record.lastError,
    last_response_code: record.lastResponseCode,
    message_id: record.messageId,
    smtp_response: record.smtpResponse,
    created_at: record.createdAt.toISOString(),
    sent_at: iso(record.sentAt),
    failed_at: iso(record.failedAt),
    ...(withBodies ? { text: record.text, html: record.html } : {}),
  };
}
