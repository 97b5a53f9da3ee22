import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emailRepository } from '../../src/adapters/db/emailRepository.ts';
import { merchantRepository } from '../../src/adapters/db/merchantRepository.ts';
import type { EmailRecord, EmailStore } from '../../src/app/email/ports.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { systemClock } from '../../src/app/shared/ports.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { until } from '../helpers/net.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

const CREATOR = fileURLToPath(new URL('../fixtures/requestCreator.ts', import.meta.url));
const WORKER = fileURLToPath(new URL('../fixtures/emailWorker.ts', import.meta.url));

/**
 * A payment request survives its API process: the process that created the payment (with `send_email`) is
 * killed as soon as it answered, before any worker ran; a worker started afterwards finds the request with the
 * payment and sends it, once.
 */
describe.each(dialects)('payment request after the API process died, %s', (dialect) => {
  let database: TestDatabase;
  let emails: EmailStore;
  let smtp: TestSmtpServer;
  const children: ChildProcess[] = [];
  let log = '';

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    emails = emailRepository(database.handle);
    smtp = await startTestSmtpServer();
  });
  afterEach(async () => {
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await smtp.close();
    await database.drop();
  });

  function start(script: string, env: Record<string, string>): { child: ChildProcess; stdout: () => string } {
    let stdout = '';
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { PATH: process.env.PATH ?? '', PAYLINK_DATABASE_URL: database.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      log = (log + chunk).slice(-4_000);
    });
    children.push(child);
    return { child, stdout: () => stdout };
  }

  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));

  it('is sent by a worker started after the creating process was killed', async () => {
    const { apiKey } = await createMerchant(
      { merchants: merchantRepository(database.handle.db), clock: systemClock, webhookAllowPrivate: false },
      {
        name: 'Corner Shop',
        wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        webhookUrl: 'https://merchant.example.test/hooks',
        commissionPercent: '1',
      },
    );
    const creator = start(CREATOR, { PAYLINK_TEST_API_KEY: apiKey });
    await exited(creator.child);
    expect(creator.child.signalCode, log).toBe('SIGKILL');
    const paymentId = creator.stdout().trim();
    expect(paymentId).toMatch(/^[0-9a-f-]{36}$/);
    expect(smtp.offered()).toBe(0);

    const worker = start(WORKER, { SMTP_PORT: String(smtp.settings.port) });
    const [sent] = await until<EmailRecord[]>(
      'the request sent',
      () => emails.list({ paymentId, limit: 10 }),
      (records) => records.length > 0 && records.every((r) => r.status === 'sent'),
      { explain: () => `log:\n${log}` },
    );
    worker.child.kill('SIGTERM');
    await exited(worker.child);

    expect(sent).toMatchObject({ kind: 'payment_request', recipient: 'crash@example.com', language: 'de' });
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]!;
    expect(mail.headers.get('content-language')).toBe('de');
    expect(mail.text ?? '').toContain(`https://pay.example.test/pay/${paymentId}`);
    expect(mail.text ?? '').toContain('19,00');
  });
});
