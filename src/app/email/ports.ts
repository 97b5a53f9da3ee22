import type { EmailKind, EmailStatus, SmtpOutcome } from '../../domain/email.ts';
import type { Merchant } from '../../domain/merchant.ts';

/** A message as queued: everything the customer will read, decided and rendered now. */
export interface EmailMessage {
  readonly id: string;
  readonly kind: EmailKind;
  readonly merchantId: string;
  readonly paymentId: string | null;
  readonly refundId: string | null;
  /** An address the merchant gave for this customer, never one we found or guessed. */
  readonly recipient: string;
  /** The language the message was rendered in. */
  readonly language: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** Our Message-ID header (`<id@domain>`): the same on every attempt, so a resend after a crash is one thread. */
  readonly messageId: string;
  readonly createdAt: Date;
}

/** A message with its delivery state, as the log shows it. */
export interface EmailRecord extends EmailMessage {
  readonly status: EmailStatus;
  readonly attemptCount: number;
  readonly nextAttemptAt: Date | null;
  readonly lastError: string | null;
  readonly lastResponseCode: number | null;
  /** What the server answered when it accepted the message (its queue id is in it). */
  readonly smtpResponse: string | null;
  readonly sentAt: Date | null;
  readonly failedAt: Date | null;
}

/** A message claimed for one attempt. */
export interface EmailJob extends EmailMessage {
  /** This attempt's number (1, 2, …); also the claim's fencing token. */
  readonly attemptNumber: number;
}

/** The state a message moves to after an attempt. */
export interface EmailAttemptResult {
  readonly status: Exclude<EmailStatus, 'sending'>;
  readonly at: Date;
  readonly nextAttemptAt: Date | null;
  readonly error: string | null;
  readonly responseCode: number | null;
  readonly smtpResponse: string | null;
}

export interface EmailFilter {
  readonly merchantId?: string | undefined;
  readonly paymentId?: string | undefined;
  readonly status?: EmailStatus | undefined;
  readonly limit: number;
}

/** The e-mail queue as the dispatcher and the operators see it. */
export interface EmailStore {
  /**
   * Queues a message in a transaction of its own. Code that queues because of another change (a payment paid,
   * a refund sent) writes it in that change's transaction instead, through its own port, so that the message
   * exists if and only if the change committed.
   */
  enqueue(message: EmailMessage): Promise<void>;
  /**
   * Claims up to `limit` due messages — never attempted, retry time reached, or leased by a worker whose lease
   * ran out — and leases them until `now + leaseMs`. Concurrent callers never claim the same message.
   */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<EmailJob[]>;
  /** Records the attempt's result, only if the claim still holds; returns whether it did. */
  completeAttempt(job: EmailJob, result: EmailAttemptResult): Promise<boolean>;
  find(id: string): Promise<EmailRecord | undefined>;
  /** Newest first. */
  list(filter: EmailFilter): Promise<EmailRecord[]>;
}

/** What is handed to the SMTP server. */
export interface OutgoingEmail {
  readonly messageId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly language: string;
}

/** The operator's SMTP server (adapters/outbound/smtpTransport.ts). Never throws: a failure is an outcome. */
export interface EmailTransport {
  send(message: OutgoingEmail): Promise<SmtpOutcome>;
  close(): Promise<void>;
}

/** A message's three renderings. */
export interface RenderedEmail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/**
 * One kind of message: turns its data into the customer's e-mail in a language. A template is pure (no I/O, no
 * clock) so that what is queued depends only on what the caller decided.
 */
export interface EmailTemplate<Data> {
  readonly kind: EmailKind;
  /** The languages it has; a message in any other is rendered in the first. */
  readonly languages: readonly string[];
  render(data: Data, language: string): RenderedEmail;
}

/** What a refund's transaction offers its notices to the customer (app/email/refundNotices.ts). */
export interface RefundNoticeTransaction {
  findMerchant(merchantId: string): Promise<Merchant | undefined>;
  insertEmail(message: EmailMessage): Promise<void>;
}
