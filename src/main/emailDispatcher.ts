import type { Logger } from 'pino';
import { createSmtpTransport } from '../adapters/outbound/smtpTransport.ts';
import { runEmailDispatcher } from '../app/email/dispatchEmails.ts';
import type { EmailStore } from '../app/email/ports.ts';
import type { Clock } from '../app/shared/ports.ts';
import type { MailConfig } from '../config/mail.ts';
import { startSandboxMailbox } from '../sandbox/mailbox.ts';

/** Queued messages are picked up within this (one indexed query per poll); mail is not urgent to the second. */
const EMAIL_POLL_MS = 1_000;

/**
 * The worker's e-mail job, until `signal` aborts: it runs in every worker, as webhook delivery does (claims
 * are leased rows, so two workers never send one message). On the sandbox it first starts the local mailbox
 * and sends there.
 */
export async function runEmailJob(
  mail: MailConfig,
  deps: { readonly emails: EmailStore; readonly clock: Clock; readonly logger: Logger },
  signal: AbortSignal,
): Promise<void> {
  const mailbox = mail.smtp === 'sandbox' ? await startSandboxMailbox(deps.logger) : undefined;
  const transport = createSmtpTransport(
    mailbox?.settings ?? (mail.smtp as Exclude<typeof mail.smtp, 'sandbox'>),
    mail.from,
  );
  try {
    await runEmailDispatcher(
      {
        emails: deps.emails,
        transport,
        clock: deps.clock,
        logger: deps.logger,
        config: { retryScheduleMs: mail.retryScheduleMs, leaseMs: mail.leaseMs },
      },
      { intervalMs: EMAIL_POLL_MS, signal },
    );
  } finally {
    await transport.close();
    await mailbox?.close();
  }
}
