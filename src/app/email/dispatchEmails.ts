import { isPermanentRefusal, nextEmailState, type SmtpOutcome } from '../../domain/email.ts';
import { type DispatcherDeps, runDispatcher } from '../operations/dispatchLoop.ts';
import type { EmailJob, EmailStore, EmailTransport } from './ports.ts';

export interface EmailDispatchConfig {
  /** Delays before the 2nd, 3rd, … attempt (the first is immediate); then the message is `failed`. */
  readonly retryScheduleMs: readonly number[];
  /**
   * How long a claim holds. Must outlast one attempt (the transport's timeouts) with room to record it: a
   * worker that has not finished by then is presumed dead and the message is claimed again.
   */
  readonly leaseMs: number;
  /** Messages claimed at once and sent one after another (an SMTP server limits a client's connections). */
  readonly batchSize?: number;
}

export interface DispatchEmailsDeps extends DispatcherDeps<EmailDispatchConfig> {
  readonly emails: EmailStore;
  readonly transport: EmailTransport;
}

export interface EmailDispatchResult {
  readonly attempted: number;
  readonly sent: number;
  readonly retrying: number;
  readonly failed: number;
  /** Results that arrived after the lease ran out and another worker claimed the message. */
  readonly lostClaims: number;
}

const DEFAULT_BATCH_SIZE = 10;

/**
 * One pass of e-mail delivery: claims the due messages and hands each to the SMTP server as stored. Messages of
 * one pass go one after another: mail is not urgent to the second, and an operator's server (or its provider's
 * rate limit) is better served by one connection than by a burst.
 *
 * A message is marked sent only after the server accepted it, so a crash between claim and acceptance loses
 * nothing: the lease runs out and the message is sent again. A crash in the instant between acceptance and the
 * record sends it twice, with the same Message-ID (mail readers show it as one thread, most as one message):
 * mail has no way to ask a server "did you already take this one?".
 */
export async function dispatchEmails(deps: DispatchEmailsDeps): Promise<EmailDispatchResult> {
  const totals = { attempted: 0, sent: 0, retrying: 0, failed: 0, lostClaims: 0 };
  const jobs = await deps.emails.claimDue(
    deps.clock.now(),
    deps.config.batchSize ?? DEFAULT_BATCH_SIZE,
    deps.config.leaseMs,
  );
  for (const job of jobs) {
    totals.attempted++;
    try {
      const status = await attempt(deps, job);
      totals[status]++;
    } catch (error) {
      // Recording failed (database trouble): the claim stays and its lease brings the message back later.
      deps.logger.error({ err: error, email: job.id }, 'e-mail attempt could not be recorded');
    }
  }
  return totals;
}

async function attempt(
  deps: DispatchEmailsDeps,
  job: EmailJob,
): Promise<'sent' | 'retrying' | 'failed' | 'lostClaims'> {
  const outcome: SmtpOutcome = await deps.transport.send({
    messageId: job.messageId,
    to: job.recipient,
    subject: job.subject,
    text: job.text,
    html: job.html,
    language: job.language,
  });
  const now = deps.clock.now();
  const next = nextEmailState({
    outcome,
    attempts: job.attemptNumber,
    scheduleMs: deps.config.retryScheduleMs,
    now,
    random: deps.random ?? Math.random,
  });
  const refused = outcome.kind === 'refused' ? outcome : undefined;
  const recorded = await deps.emails.completeAttempt(job, {
    status: next.status,
    at: now,
    nextAttemptAt: next.nextAttemptAt,
    error: refused?.error ?? null,
    responseCode: refused?.responseCode ?? null,
    smtpResponse: outcome.kind === 'accepted' ? outcome.response : null,
  });
  // The recipient is personal data: the log names the message, whose row says to whom it went, and cuts the
  // address out of the server's words (a refusal often quotes it).
  const context = {
    email: job.id,
    kind: job.kind,
    payment: job.paymentId ?? undefined,
    refund: job.refundId ?? undefined,
    attempt: job.attemptNumber,
    response_code: refused?.responseCode,
    error: refused?.error.split(job.recipient).join('[recipient]'),
  };
  if (!recorded) {
    deps.logger.warn(context, 'e-mail attempt finished after its lease was taken over; result not recorded');
    return 'lostClaims';
  }
  if (next.status === 'sent') {
    deps.logger.info(context, 'e-mail sent');
    return 'sent';
  }
  if (next.status === 'failed') {
    deps.logger.error(
      context,
      refused && isPermanentRefusal(refused)
        ? 'E-MAIL FAILED: the SMTP server refused it for good'
        : 'E-MAIL FAILED: every scheduled attempt failed',
    );
    return 'failed';
  }
  if (refused?.stage === 'authentication') {
    // Every message will fail the same way until the operator fixes the credentials.
    deps.logger.error(
      { ...context, next_attempt_at: next.nextAttemptAt },
      'e-mail not sent: the SMTP server refused our login (check PAYLINK_SMTP_URL); will retry',
    );
  } else {
    deps.logger.warn({ ...context, next_attempt_at: next.nextAttemptAt }, 'e-mail not sent; will retry');
  }
  return 'retrying';
}

/** Runs passes until `signal` aborts: at once again after a pass that found work, else after `intervalMs`. */
export function runEmailDispatcher(
  deps: DispatchEmailsDeps,
  options: { readonly intervalMs: number; readonly signal: AbortSignal },
): Promise<void> {
  return runDispatcher('emails', deps.logger, options, () => dispatchEmails(deps));
}
