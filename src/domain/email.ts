import { jittered } from './webhookRetry.ts';

/**
 * E-mail to customers (decision 0021). Every message is rendered when it is queued and stored whole, so what a
 * restart sends is exactly what was decided; the worker only hands stored bytes to the operator's SMTP server.
 *
 *   queued ──claim──▶ sending ──2xx (accepted)──▶ sent
 *     ▲                  │──5xx (refused for good)──▶ failed
 *     └──retry later─────│──4xx / no answer──▶ queued, or failed after the last scheduled retry
 *
 * A worker that dies while `sending` leaves a lease that runs out; the message is then claimed again.
 */
export const EMAIL_STATUSES = ['queued', 'sending', 'sent', 'failed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/**
 * What a message is for. The list only grows: each kind has its own template, and a message's kind is stored
 * with it so the log says why a customer was written to.
 */
export const EMAIL_KINDS = ['payment_request', 'receipt', 'refund_notice'] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/** RFC 5321's limit on a forward path. */
export const MAX_EMAIL_ADDRESS_LENGTH = 254;
/** Bounds on what is stored per message: a template bug must not fill the database. */
export const MAX_SUBJECT_LENGTH = 200;
export const MAX_BODY_LENGTH = 100_000;

/**
 * A plain mailbox `local@domain`, as a merchant gives it for its customer: no display name, no comments, no
 * quoted local part, no whitespace or control character (a CR or LF could add a header). Stricter than RFC
 * 5322 on purpose: an address we cannot read plainly is one we should not write to.
 */
export function isEmailAddress(text: string): boolean {
  if (text.length > MAX_EMAIL_ADDRESS_LENGTH) return false;
  const match =
    /^([A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64})@([A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+)$/.exec(text);
  if (!match) return false;
  const [, local, domain] = match as unknown as [string, string, string];
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  return domain.split('.').every((label) => !label.startsWith('-') && !label.endsWith('-'));
}

/** A language tag as stored with a message (`en`, `fr`, `pt-BR`): the template's choice, checked for shape. */
export function isLanguageTag(text: string): boolean {
  return /^[a-z]{2,3}(-[A-Z]{2})?$/.test(text);
}

/**
 * Remote content in an e-mail's HTML: an image, style or frame loaded from elsewhere tells the sender when and
 * where the message was opened (a tracking pixel), and we promise customers none. Links (`<a href>`) are fine:
 * they load nothing until the reader clicks. Returns what was found, or undefined.
 */
export function findRemoteContent(html: string): string | undefined {
  const patterns: readonly RegExp[] = [
    /<(?:img|image|iframe|frame|embed|object|script|link|video|audio|source|input|track)\b/i,
    /<[^>]*\s(?:src|srcset|background|poster|data|xlink:href)\s*=/i,
    // Inside markup only: a customer's own text (escaped) may say "url(" without loading anything.
    /<style\b[^>]*>[^<]*(?:url\s*\(|@import)/i,
    /<[^>]*\sstyle\s*=\s*("[^"]*|'[^']*)url\s*\(/i,
  ];
  for (const pattern of patterns) {
    const found = pattern.exec(html);
    if (found) return found[0];
  }
  return undefined;
}

/** How an SMTP attempt ended, as the transport reports it. */
export type SmtpOutcome =
  | { readonly kind: 'accepted'; readonly messageId: string; readonly response: string }
  | {
      readonly kind: 'refused';
      /** The SMTP reply code, when the server gave one (none for a connection or TLS failure). */
      readonly responseCode: number | undefined;
      /**
       * Where it failed: reaching, securing or greeting the server (`connection`), logging in
       * (`authentication`: the operator's credentials), or at this message's sender, recipient or content.
       */
      readonly stage: 'connection' | 'authentication' | 'message';
      readonly error: string;
    };

/**
 * A 5xx to this message (no such mailbox, rejected content) is the server's final word on it: retrying changes
 * nothing and could get the operator's server listed as abusive. 4xx (greylisting, a full mailbox, rate limits)
 * and no answer at all are temporary. A 5xx before the message (to our login, to STARTTLS) is the operator's
 * configuration, not the message's fault: it is retried, loudly, so that fixing the setting lets the queue
 * drain instead of failing every message for good.
 */
export function isPermanentRefusal(outcome: Extract<SmtpOutcome, { kind: 'refused' }>): boolean {
  if (outcome.stage !== 'message') return false;
  return outcome.responseCode !== undefined && outcome.responseCode >= 500 && outcome.responseCode < 600;
}

export interface NextEmailState {
  readonly status: Exclude<EmailStatus, 'sending'>;
  /** When to try again (status queued), else null. */
  readonly nextAttemptAt: Date | null;
}

/**
 * Where a message goes after an attempt. `attempts` counts this one; the retry after the n-th attempt waits
 * `scheduleMs[n - 1]`, jittered like webhooks, so one outage's messages do not all come back in the same second.
 */
export function nextEmailState(input: {
  readonly outcome: SmtpOutcome;
  readonly attempts: number;
  readonly scheduleMs: readonly number[];
  readonly now: Date;
  readonly random: () => number;
}): NextEmailState {
  const { outcome, attempts } = input;
  if (!Number.isSafeInteger(attempts) || attempts < 1) throw new RangeError(`bad attempt count ${attempts}`);
  if (outcome.kind === 'accepted') return { status: 'sent', nextAttemptAt: null };
  if (isPermanentRefusal(outcome)) return { status: 'failed', nextAttemptAt: null };
  const delay = input.scheduleMs[attempts - 1];
  if (delay === undefined) return { status: 'failed', nextAttemptAt: null };
  return { status: 'queued', nextAttemptAt: new Date(input.now.getTime() + jittered(delay, input.random)) };
}
