import nodemailer from 'nodemailer';
import type { EmailTransport } from '../../app/email/ports.ts';
import type { SmtpSettings } from '../../config/mail.ts';
import type { SmtpOutcome } from '../../domain/email.ts';

/** Longest error text kept with a message: the server's sentence, not a transcript. */
const MAX_ERROR_LENGTH = 500;

/** Bounds on each step, so a silent server holds a message for minutes at most (the claim's lease is longer). */
const TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

/**
 * Sends through the operator's SMTP server with nodemailer: one connection per message (messages go one after
 * another and are few; a pool would hold connections the server may drop while idle). Every failure comes back
 * as an outcome whose text names no credential: the user name and password are cut out of whatever the library
 * or the server said, since either may echo them.
 */
export function createSmtpTransport(settings: SmtpSettings, from: string): EmailTransport {
  const transporter = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.implicitTls,
    requireTLS: !settings.implicitTls && settings.starttls === 'required',
    ignoreTLS: !settings.implicitTls && settings.starttls === 'off',
    auth: settings.user === undefined ? undefined : { user: settings.user, pass: settings.password ?? '' },
    ...TIMEOUTS,
    // Nothing a message holds is ever read from a file or fetched from a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    debug: false,
  });
  const secrets = [settings.password, settings.user].filter(
    (s): s is string => s !== undefined && s.length > 0,
  );
  return {
    async send(message): Promise<SmtpOutcome> {
      try {
        const info = await transporter.sendMail({
          from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId: message.messageId,
          headers: {
            'Content-Language': message.language,
            // Not a bulk or marketing message: auto-responders should stay quiet.
            'Auto-Submitted': 'auto-generated',
          },
        });
        return {
          kind: 'accepted',
          messageId: info.messageId,
          response: clean(String(info.response ?? ''), secrets),
        };
      } catch (error) {
        const failure = error as { code?: string; responseCode?: number; message?: string };
        return {
          kind: 'refused',
          responseCode: typeof failure.responseCode === 'number' ? failure.responseCode : undefined,
          stage: stageOf(failure.code),
          error: clean(
            `${failure.code ? `${failure.code}: ` : ''}${failure.message ?? String(error)}`,
            secrets,
          ),
        };
      }
    },
    async close() {
      transporter.close();
    },
  };
}

/** nodemailer's error codes: EENVELOPE (MAIL FROM, RCPT TO) and EMESSAGE (DATA) are about this message. */
function stageOf(code: string | undefined): 'connection' | 'authentication' | 'message' {
  if (code === 'EENVELOPE' || code === 'EMESSAGE') return 'message';
  if (code === 'EAUTH' || code === 'ENOAUTH') return 'authentication';
  return 'connection';
}

/** One line, bounded, with every secret (and its URL-encoded form) replaced. */
function clean(text: string, secrets: readonly string[]): string {
  let result = text.replace(/\s+/g, ' ').trim();
  for (const secret of secrets) {
    for (const form of new Set([
      secret,
      encodeURIComponent(secret),
      Buffer.from(secret).toString('base64'),
    ])) {
      result = result.split(form).join('[redacted]');
    }
  }
  return result.length > MAX_ERROR_LENGTH ? `${result.slice(0, MAX_ERROR_LENGTH - 1)}…` : result;
}
