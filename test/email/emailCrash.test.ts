import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emailRepository } from '../../src/adapters/db/emailRepository.ts';
import { merchantRepository } from '../../src/adapters/db/merchantRepository.ts';
import { composeEmail } from '../../src/app/email/composeEmail.ts';
import type { EmailRecord, EmailStore, EmailTemplate } from '../../src/app/email/ports.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { systemClock } from '../../src/app/shared/ports.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { until } from '../helpers/net.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';
import { exited, workerProcesses } from '../helpers/workerProcesses.ts';

const WORKER = fileURLToPath(new URL('../fixtures/emailWorker.ts', import.meta.url));
const LEASE_MS = 60_000;

const receipt: EmailTemplate<null> = {
  kind: 'receipt',
  languages: ['en'],
  render: () => ({ subject: 'Your receipt', text: 'Paid.', html: '<p>Paid.</p>' }),
};

describe.each(dialects)('e-mail worker killed mid-send, %s', (dialect) => {
  let database: TestDatabase;
  let emails: EmailStore;
  let smtp: TestSmtpServer;
  const workers = workerProcesses(WORKER);

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    emails = emailRepository(database.handle);
    smtp = await startTestSmtpServer();
  });
  afterEach(async () => {
    workers.killAll();
    await smtp.close();
    await database.drop();
  });

  /** A real worker process running the e-mail job on the test's database. */
  const startWorker = (clockOffsetMs: number) =>
    workers.start({
      PAYLINK_DATABASE_URL: database.url,
      SMTP_PORT: String(smtp.settings.port),
      WORKER_CLOCK_OFFSET_MS: String(clockOffsetMs),
      WORKER_LEASE_MS: String(LEASE_MS),
    });

  const withWorkerLog = { explain: () => `worker log:\n${workers.log()}` };

  it('the message is sent once after a restart, with the same Message-ID', async () => {
    const { merchant } = await createMerchant(
      { merchants: merchantRepository(database.handle.db), clock: systemClock, webhookAllowPrivate: false },
      { name: 'Shop', wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', commissionPercent: '1' },
    );
    const queued = composeEmail(
      { template: receipt, data: null, merchantId: merchant.id, recipient: 'ann@example.com' },
      { id: randomUUID(), messageDomain: 'shop.example', now: systemClock.now() },
    );
    await emails.enqueue(queued);
    // The first delivery is held open — the server never answers its DATA — while the worker is killed.
    smtp.answer = (index) => (index === 0 ? { hold: true } : { accept: true });

    const first = startWorker(0);
    await until(
      'the first attempt',
      async () => smtp.offered(),
      (n) => n >= 1,
      withWorkerLog,
    );
    first.kill('SIGKILL');
    await exited(first);
    expect(await emails.find(queued.id)).toMatchObject({ status: 'sending', attemptCount: 1 });

    // A new worker whose clock is past the dead worker's lease takes the message over.
    const second = startWorker(LEASE_MS + 1_000);
    const sent = await until<EmailRecord | undefined>(
      'delivery after the restart',
      () => emails.find(queued.id),
      (r) => r?.status === 'sent',
      withWorkerLog,
    );
    second.kill('SIGTERM');
    await exited(second);

    expect(sent).toMatchObject({ status: 'sent', attemptCount: 2, lastError: null });
    expect(smtp.offered()).toBe(2);
    expect(smtp.received.map((m) => m.messageId)).toEqual([queued.messageId]);
    expect(second.exitCode).toBe(0);
  });
});
