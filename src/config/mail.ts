import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../domain/webhookRetry.ts';

/**
 * E-mail (decision 0021): PAYLINK_SMTP_URL and PAYLINK_MAIL_FROM, read by config.ts. Without them no e-mail is
 * queued at all, except on the sandbox, whose worker runs a mailbox of its own (sandbox/mailbox.ts).
 */
export interface MailConfig {
  /** The From header: `no-reply@shop.example` or `Corner Shop <no-reply@shop.example>`. */
  readonly from: string;
  /** The domain of the From address: the right-hand side of every Message-ID we write. */
  readonly messageDomain: string;
  /** The operator's server, or the sandbox's own mailbox (started by the worker on a free loopback port). */
  readonly smtp: SmtpSettings | 'sandbox';
  /** Delays before the 2nd, 3rd, … attempt; the first is immediate (the webhooks' schedule: about three days). */
  readonly retryScheduleMs: readonly number[];
  /** A claimed message's lease: one attempt's timeouts with room to spare; past it the message is claimed again. */
  readonly leaseMs: number;
}

export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  /** smtps://: TLS from the first byte. */
  readonly implicitTls: boolean;
  /**
   * smtp:// only. `required`: no message and no password goes out unless the server upgrades the connection
   * (the default off the sandbox); `optional`: upgraded when offered; `off`: never (a relay on this machine).
   */
  readonly starttls: 'required' | 'optional' | 'off';
  /** From the URL's user info; a secret, never logged or shown (nor is the URL). */
  readonly user: string | undefined;
  readonly password: string | undefined;
}

export const SANDBOX_MAIL_FROM = 'Paylink sandbox <no-reply@sandbox.paylink.localhost>';
const LEASE_MS = 10 * 60_000;
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The mail settings, or a sentence naming what is wrong (never quoting the URL, which may hold a password), or
 * undefined when e-mail is off.
 */
export function parseMailConfig(
  smtpUrl: string | undefined,
  mailFrom: string | undefined,
  network: string,
): MailConfig | string | undefined {
  if (smtpUrl === undefined && mailFrom === undefined)
    return network === 'sandbox' ? mailConfig(SANDBOX_MAIL_FROM, 'sandbox') : undefined;
  if (smtpUrl === undefined)
    return 'PAYLINK_MAIL_FROM is set but PAYLINK_SMTP_URL is not: set both, or neither';
  if (mailFrom === undefined)
    return 'PAYLINK_SMTP_URL is set but PAYLINK_MAIL_FROM is not: set both, or neither';
  const smtp = parseSmtpUrl(smtpUrl, network);
  if (typeof smtp === 'string') return smtp;
  const from = mailConfig(mailFrom, smtp);
  return (
    from ?? 'PAYLINK_MAIL_FROM must be an address (no-reply@shop.example) or "Name <no-reply@shop.example>"'
  );
}

function mailConfig(from: string, smtp: SmtpSettings | 'sandbox'): MailConfig | undefined {
  const domain = fromDomain(from);
  if (domain === undefined) return undefined;
  return { from, messageDomain: domain, smtp, retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS, leaseMs: LEASE_MS };
}

/** The domain of `addr@domain` or `Name <addr@domain>`; undefined for anything else (or a header injection). */
function fromDomain(from: string): string | undefined {
  if (/[\r\n\0]/.test(from) || from.length > 320) return undefined;
  const match = /^(?:[^<>@",;]{1,100} <([^<>\s@]+)@([^<>\s@]+)>|([^<>\s@",;]+)@([^<>\s@",;]+))$/.exec(
    from.trim(),
  );
  if (!match) return undefined;
  const domain = (match[2] ?? match[4])!;
  return /^[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+$/.test(domain) ? domain.toLowerCase() : undefined;
}

function parseSmtpUrl(text: string, network: string): SmtpSettings | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'PAYLINK_SMTP_URL must be a URL: smtps://user:password@host:465 or smtp://user:password@host:587';
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    return 'PAYLINK_SMTP_URL must start with smtps:// (TLS) or smtp:// (STARTTLS)';
  if (url.hostname === '') return 'PAYLINK_SMTP_URL must name a host';
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash !== '')
    return 'PAYLINK_SMTP_URL must have no path: only ?starttls= may follow the host';
  const implicitTls = url.protocol === 'smtps:';
  const params = [...url.searchParams.keys()];
  if (params.some((key) => key !== 'starttls')) return 'PAYLINK_SMTP_URL knows one option only: ?starttls=';
  const asked = url.searchParams.get('starttls');
  if (asked !== null && !['required', 'optional', 'off'].includes(asked))
    return 'PAYLINK_SMTP_URL: starttls must be required, optional or off';
  if (asked !== null && implicitTls)
    return 'PAYLINK_SMTP_URL: starttls is for smtp:// (smtps:// is TLS already)';
  const starttls = (asked ?? (network === 'sandbox' ? 'optional' : 'required')) as SmtpSettings['starttls'];
  const user = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  // A password in clear text is readable by anyone on the path; to a relay on this machine there is no path.
  if (!implicitTls && starttls !== 'required' && password !== undefined && !LOOPBACK.includes(url.hostname))
    return 'PAYLINK_SMTP_URL: a password is sent only over TLS (smtps://, or smtp:// with STARTTLS required)';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (implicitTls ? 465 : 587) : Number(url.port),
    implicitTls,
    starttls,
    user,
    password,
  };
}

/** The e-mail variables, checked by `parseMailConfig`, whose messages never quote the URL (it may hold a password). */
export const mailEnv = {
  PAYLINK_SMTP_URL: z.string().optional(),
  PAYLINK_MAIL_FROM: z.string().optional(),
};
