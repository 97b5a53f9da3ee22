import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import type { Logger } from 'pino';
import { SMTPServer } from 'smtp-server';
import type { SmtpSettings } from '../config/mail.ts';

/** Largest message the sandbox mailbox takes: far above any e-mail of ours. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * The sandbox's mail server: a real SMTP server (smtp-server) on a free loopback port, started by the worker,
 * that takes every message, logs who it was for and its subject, and keeps nothing: nothing leaves the
 * machine. What was "sent", whole, is in the queue's log (`paylink mail list`, `paylink mail show <id>`), with
 * the queue id this server answered. Sandbox only.
 */
export async function startSandboxMailbox(
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<{ settings: SmtpSettings; close(): Promise<void> }> {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    banner: 'Paylink sandbox mailbox: nothing leaves this machine',
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true })
        .then((mail) => {
          received += 1;
          const queueId = `sandbox-${received}`;
          logger.info(
            {
              queueId,
              to: session.envelope.rcptTo.map((r) => r.address),
              subject: mail.subject,
              messageId: mail.messageId,
            },
            'sandbox mailbox received an e-mail (read it with `paylink mail show`)',
          );
          callback(null, `queued as ${queueId}`);
        })
        .catch((error: Error) => {
          logger.warn({ err: error }, 'sandbox mailbox could not read a message');
          callback(error);
        });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    settings: {
      host: '127.0.0.1',
      port,
      implicitTls: false,
      starttls: 'off',
      user: undefined,
      password: undefined,
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
