import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../domain/webhookRetry.ts';
import { ConfigError, loadConfig } from './index.ts';
import { SANDBOX_MAIL_FROM } from './mail.ts';

const live = { PAYLINK_NETWORK: 'polygon' };
const FROM = 'Corner Shop <no-reply@shop.example>';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

// The e-mail variables (kept out of config.test.ts, which belongs to the configuration as a whole).
describe('e-mail configuration', () => {
  it('is off without PAYLINK_SMTP_URL off the sandbox, and the sandbox sends to its own mailbox', () => {
    expect(loadConfig(live).mail).toBeUndefined();
    expect(loadConfig({}).mail).toMatchObject({
      smtp: 'sandbox',
      from: SANDBOX_MAIL_FROM,
      messageDomain: 'sandbox.paylink.localhost',
    });
  });

  it('reads smtps:// with its credentials, and the From address and its domain', () => {
    const mail = loadConfig({
      ...live,
      PAYLINK_SMTP_URL: 'smtps://mailer%40shop.example:p%40ss%2Fw0rd@smtp.shop.example',
      PAYLINK_MAIL_FROM: FROM,
    }).mail;
    expect(mail).toStrictEqual({
      from: FROM,
      messageDomain: 'shop.example',
      smtp: {
        host: 'smtp.shop.example',
        port: 465,
        implicitTls: true,
        starttls: 'required',
        user: 'mailer@shop.example',
        password: 'p@ss/w0rd',
      },
      retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
      leaseMs: 600_000,
    });
  });

  it('requires STARTTLS on smtp:// off the sandbox unless the URL says otherwise', () => {
    const smtp = (url: string, env: Record<string, string> = live) =>
      loadConfig({ ...env, PAYLINK_SMTP_URL: url, PAYLINK_MAIL_FROM: 'no-reply@shop.example' }).mail?.smtp;
    expect(smtp('smtp://u:p@smtp.shop.example')).toMatchObject({
      port: 587,
      implicitTls: false,
      starttls: 'required',
    });
    expect(smtp('smtp://127.0.0.1:2525', {})).toMatchObject({ port: 2525, starttls: 'optional' });
    expect(smtp('smtp://relay.internal:25?starttls=optional')).toMatchObject({ starttls: 'optional' });
    expect(smtp('smtp://localhost:25?starttls=off')).toMatchObject({ starttls: 'off', user: undefined });
    // A local relay may take a password in clear text: nothing is on the path.
    expect(smtp('smtp://u:p@127.0.0.1:25?starttls=off')).toMatchObject({ starttls: 'off', password: 'p' });
  });

  it.each([
    [{ PAYLINK_SMTP_URL: 'smtps://u:s3cr3t-pw@smtp.shop.example' }, 'PAYLINK_MAIL_FROM'],
    [{ PAYLINK_MAIL_FROM: FROM }, 'PAYLINK_SMTP_URL is not'],
    [{ PAYLINK_SMTP_URL: 'https://u:s3cr3t-pw@smtp.shop.example', PAYLINK_MAIL_FROM: FROM }, 'smtps://'],
    [{ PAYLINK_SMTP_URL: 's3cr3t-pw', PAYLINK_MAIL_FROM: FROM }, 'must be a URL'],
    [
      { PAYLINK_SMTP_URL: 'smtp://u:s3cr3t-pw@smtp.shop.example?starttls=off', PAYLINK_MAIL_FROM: FROM },
      'only over TLS',
    ],
    [
      { PAYLINK_SMTP_URL: 'smtp://u:s3cr3t-pw@smtp.shop.example?starttls=maybe', PAYLINK_MAIL_FROM: FROM },
      'starttls',
    ],
    [
      { PAYLINK_SMTP_URL: 'smtps://u:s3cr3t-pw@smtp.shop.example?starttls=off', PAYLINK_MAIL_FROM: FROM },
      'starttls',
    ],
    [
      { PAYLINK_SMTP_URL: 'smtps://u:s3cr3t-pw@smtp.shop.example?pool=true', PAYLINK_MAIL_FROM: FROM },
      'one option',
    ],
    [{ PAYLINK_SMTP_URL: 'smtps://u:s3cr3t-pw@smtp.shop.example/x', PAYLINK_MAIL_FROM: FROM }, 'no path'],
    [
      { PAYLINK_SMTP_URL: 'smtps://u:s3cr3t-pw@smtp.shop.example', PAYLINK_MAIL_FROM: 'shop' },
      'PAYLINK_MAIL_FROM',
    ],
    [
      {
        PAYLINK_SMTP_URL: 'smtps://u:s3cr3t-pw@smtp.shop.example',
        PAYLINK_MAIL_FROM: 'a@shop.example\nBcc: x@y.z',
      },
      'PAYLINK_MAIL_FROM',
    ],
  ])('refuses %o, naming the problem and never the password', (env, named) => {
    const message = refusal({ ...live, ...env });
    expect(message).toContain(named);
    expect(message).not.toContain('s3cr3t-pw');
  });
});
