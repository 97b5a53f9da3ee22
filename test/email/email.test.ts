import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/db/database.ts';
import { insertEmailMessage } from '../../src/adapters/db/emailOutbox.ts';
import { emailRepository } from '../../src/adapters/db/emailRepository.ts';
import { merchantRepository } from '../../src/adapters/db/merchantRepository.ts';
import { createSmtpTransport } from '../../src/adapters/outbound/smtpTransport.ts';
import { composeEmail } from '../../src/app/email/composeEmail.ts';
import { type DispatchEmailsDeps, dispatchEmails } from '../../src/app/email/dispatchEmails.ts';
import type { EmailMessage, EmailStore, EmailTemplate, EmailTransport } from '../../src/app/email/ports.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { SmtpSettings } from '../../src/config/mail.ts';
import { runEmailJob } from '../../src/main/emailDispatcher.ts';
import { TestClock } from '../helpers/clock.ts';
import { countRows, createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { eventually } from '../helpers/net.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

const FROM = 'Corner Shop <no-reply@shop.example>';
const RETRY_SCHEDULE_MS = [5_000, 60_000];
const LEASE_MS = 600_000;

/** A template as the concrete e-mails will have: data in, the three renderings out, per language. */
const greeting: EmailTemplate<{ readonly name: string }> = {
  kind: 'payment_request',
  languages: ['en', 'fr'],
  render: ({ name }, language) =>
    language === 'fr'
      ? { subject: `Bonjour ${name}`, text: `Bonjour ${name}.`, html: `<p>Bonjour <b>${name}</b>.</p>` }
      : { subject: `Hello ${name}`, text: `Hello ${name}.`, html: `<p>Hello <b>${name}</b>.</p>` },
};

describe.each(dialects)('e-mail queue on %s', (dialect) => {
  let database: TestDatabase;
  let emails: EmailStore;
  let smtp: TestSmtpServer;
  let merchantId: string;
  const clock = new TestClock();
  const transports: EmailTransport[] = [];
  let log: ReturnType<typeof capturingLogger>;

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    emails = emailRepository(database.handle);
    smtp = await startTestSmtpServer();
    log = capturingLogger();
    const { merchant } = await createMerchant(
      { merchants: merchantRepository(database.handle.db), clock, webhookAllowPrivate: false },
      { name: 'Corner Shop', wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', commissionPercent: '1' },
    );
    merchantId = merchant.id;
  });
  afterEach(async () => {
    for (const transport of transports.splice(0)) await transport.close();
    await smtp.close();
    await database.drop();
  });

  function message(recipient = 'ann@example.com', language = 'fr'): EmailMessage {
    return composeEmail(
      { template: greeting, data: { name: 'Ann' }, merchantId, recipient, language },
      { id: randomUUID(), messageDomain: 'shop.example', now: clock.now() },
    );
  }

  function dispatcher(settings: SmtpSettings = smtp.settings, store = emails): DispatchEmailsDeps {
    const transport = createSmtpTransport(settings, FROM);
    transports.push(transport);
    return {
      emails: store,
      transport,
      clock,
      logger: log.logger,
      config: { retryScheduleMs: RETRY_SCHEDULE_MS, leaseMs: LEASE_MS },
      // No jitter: the retry is due exactly at its scheduled delay.
      random: () => 0.5,
    };
  }

  it('sends a queued message once, as rendered when it was queued, with text and HTML parts', async () => {
    const queued = message();
    await emails.enqueue(queued);

    expect(await dispatchEmails(dispatcher())).toMatchObject({ attempted: 1, sent: 1 });
    expect(await dispatchEmails(dispatcher())).toMatchObject({ attempted: 0 });

    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]!;
    expect(mail.from?.value).toEqual([{ address: 'no-reply@shop.example', name: 'Corner Shop' }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value : undefined).toEqual([
      { address: 'ann@example.com', name: '' },
    ]);
    expect(mail.subject).toBe('Bonjour Ann');
    expect(mail.text?.trim()).toBe('Bonjour Ann.');
    expect(mail.html).toContain('<p>Bonjour <b>Ann</b>.</p>');
    expect(mail.messageId).toBe(queued.messageId);
    expect(mail.headers.get('content-language')).toBe('fr');

    const record = await emails.find(queued.id);
    expect(record).toMatchObject({
      status: 'sent',
      attemptCount: 1,
      lastError: null,
      sentAt: clock.now(),
      kind: 'payment_request',
      recipient: 'ann@example.com',
      language: 'fr',
    });
    expect(record?.smtpResponse).toContain('queued as TEST0');
  });

  it('retries a temporary refusal (4xx) on the schedule, then delivers', async () => {
    smtp.answer = (index) => (index === 0 ? { refuse: 451, message: 'Try again later' } : { accept: true });
    const queued = message();
    await emails.enqueue(queued);

    expect(await dispatchEmails(dispatcher())).toMatchObject({ attempted: 1, retrying: 1 });
    const waiting = await emails.find(queued.id);
    expect(waiting).toMatchObject({ status: 'queued', attemptCount: 1, lastResponseCode: 451 });
    expect(waiting?.lastError).toContain('Try again later');
    expect(waiting?.nextAttemptAt).toEqual(new Date(clock.now().getTime() + RETRY_SCHEDULE_MS[0]!));
    expect(smtp.received).toHaveLength(0);

    // Not before its time.
    clock.advance(RETRY_SCHEDULE_MS[0]! - 1);
    expect(await dispatchEmails(dispatcher())).toMatchObject({ attempted: 0 });
    clock.advance(1);
    expect(await dispatchEmails(dispatcher())).toMatchObject({ attempted: 1, sent: 1 });
    expect(smtp.received.map((m) => m.messageId)).toEqual([queued.messageId]);
    expect(await emails.find(queued.id)).toMatchObject({ status: 'sent', attemptCount: 2, lastError: null });
  });

  it('fails a permanent refusal (5xx) for good at once, and says so in the log', async () => {
    smtp.answer = () => ({ refuse: 550, message: '<nobody@example.com>: no such user here' });
    const queued = message('nobody@example.com');
    await emails.enqueue(queued);

    expect(await dispatchEmails(dispatcher())).toMatchObject({ attempted: 1, failed: 1 });
    expect(await emails.find(queued.id)).toMatchObject({
      status: 'failed',
      attemptCount: 1,
      lastResponseCode: 550,
      nextAttemptAt: null,
      failedAt: clock.now(),
    });
    clock.advance(24 * 3_600_000);
    expect(await dispatchEmails(dispatcher())).toMatchObject({ attempted: 0 });
    expect(smtp.offered()).toBe(1);
    const failure = log
      .text()
      .split('\n')
      .filter((line) => line.includes('E-MAIL FAILED'))
      .map((line) => JSON.parse(line));
    expect(failure).toMatchObject([{ level: 50, email: queued.id, response_code: 550 }]);
    // The recipient is personal data: the log names the message, not the address.
    expect(log.text()).not.toContain('nobody@example.com');
  });

  it('gives up after the last scheduled retry', async () => {
    smtp.answer = () => ({ refuse: 421, message: 'Service not available' });
    const queued = message();
    await emails.enqueue(queued);
    for (const delay of RETRY_SCHEDULE_MS) {
      expect(await dispatchEmails(dispatcher())).toMatchObject({ retrying: 1 });
      clock.advance(delay);
    }
    expect(await dispatchEmails(dispatcher())).toMatchObject({ failed: 1 });
    expect(await emails.find(queued.id)).toMatchObject({ status: 'failed', attemptCount: 3 });
    expect(smtp.offered()).toBe(3);
  });

  it('keeps a message claimed by a worker that died before sending, and sends it once its lease runs out', async () => {
    const queued = message();
    await emails.enqueue(queued);
    // A worker claims it, then dies: nothing is ever sent or recorded by it.
    expect(await emails.claimDue(clock.now(), 10, LEASE_MS)).toHaveLength(1);

    expect(await dispatchEmails(dispatcher())).toMatchObject({ attempted: 0 });
    clock.advance(LEASE_MS);
    expect(await dispatchEmails(dispatcher())).toMatchObject({ attempted: 1, sent: 1 });
    expect(smtp.received.map((m) => m.messageId)).toEqual([queued.messageId]);
    expect(await emails.find(queued.id)).toMatchObject({ status: 'sent', attemptCount: 2 });
  });

  it('does not let a worker whose lease was taken over overwrite the new claim', async () => {
    const queued = message();
    await emails.enqueue(queued);
    const [stale] = await emails.claimDue(clock.now(), 10, LEASE_MS);
    clock.advance(LEASE_MS);
    const [current] = await emails.claimDue(clock.now(), 10, LEASE_MS);
    expect(current?.attemptNumber).toBe(2);
    // The first worker was only slow: its result arrives while the second one's attempt is in flight.
    const late = {
      status: 'queued',
      at: clock.now(),
      nextAttemptAt: clock.now(),
      error: 'late',
      responseCode: 451,
      smtpResponse: null,
    } as const;
    expect(await emails.completeAttempt(stale!, late)).toBe(false);
    expect(await emails.find(queued.id)).toMatchObject({
      status: 'sending',
      attemptCount: 2,
      lastError: null,
    });
    expect(await emails.completeAttempt(current!, { ...late, status: 'sent', nextAttemptAt: null })).toBe(
      true,
    );
    expect(await emails.find(queued.id)).toMatchObject({ status: 'sent' });
  });

  it('sends each message once when two workers dispatch at the same time', async () => {
    const queued = Array.from({ length: 6 }, (_, i) => message(`buyer${i}@example.com`));
    for (const m of queued) await emails.enqueue(m);
    // On PostgreSQL the second worker has its own connections, as another process would; a SQLite database
    // belongs to one process (its lock file), whose workers share its connection.
    const other = dialect === 'postgres' ? openDatabase(database.url) : undefined;
    try {
      const [a, b] = await Promise.all([
        dispatchEmails({ ...dispatcher(), config: { ...dispatcher().config, batchSize: 4 } }),
        dispatchEmails({
          ...dispatcher(smtp.settings, other ? emailRepository(other) : emails),
          config: { ...dispatcher().config, batchSize: 4 },
        }),
      ]);
      const passes = [a, b];
      // Whatever the first pass left, a later one sends; none is sent twice.
      while ((await countRows(database.handle.db, 'email_messages')) > smtp.received.length) {
        const more = await dispatchEmails(dispatcher());
        passes.push(more);
        if (more.attempted === 0) break;
      }
      expect(passes.reduce((n, p) => n + p.sent, 0)).toBe(6);
    } finally {
      await other?.close();
    }
    const ids = smtp.received.map((m) => m.messageId).sort();
    expect(ids).toEqual(queued.map((m) => m.messageId).sort());
    expect(smtp.offered()).toBe(6);
  });

  it('queues a message in the transaction of the change that causes it: a rollback leaves none', async () => {
    const kept = message();
    const dropped = message();
    await database.handle.db.transaction().execute((trx) => insertEmailMessage(trx, kept));
    await expect(
      database.handle.db.transaction().execute(async (trx) => {
        await insertEmailMessage(trx, dropped);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await emails.find(kept.id)).toMatchObject({ status: 'queued' });
    expect(await emails.find(dropped.id)).toBeUndefined();
  });

  it('never shows the SMTP credentials, in the log or in the stored error', async () => {
    const user = 'paylink-user-7c1e';
    const password = 'pw-4f9a2b8d71c3e6';
    const guarded = await startTestSmtpServer({ auth: { user, password } });
    try {
      const queued = message();
      await emails.enqueue(queued);
      // Wrong password: the server refuses the login (535), which is retried, loudly.
      const wrong = { ...guarded.settings, password: `${password}-old` };
      expect(await dispatchEmails(dispatcher(wrong))).toMatchObject({ retrying: 1 });
      const refused = await emails.find(queued.id);
      expect(refused).toMatchObject({ status: 'queued', lastResponseCode: 535 });
      expect(refused?.lastError).toContain('Authentication failed for [redacted]');
      expect(log.text()).toContain('the SMTP server refused our login');

      clock.advance(RETRY_SCHEDULE_MS[0]!);
      expect(await dispatchEmails(dispatcher(guarded.settings))).toMatchObject({ sent: 1 });
      expect(guarded.received).toHaveLength(1);

      const everything = `${log.text()}\n${JSON.stringify(await emails.list({ limit: 10 }))}`;
      for (const secret of [user, password, Buffer.from(password).toString('base64')])
        expect(everything).not.toContain(secret);
    } finally {
      await guarded.close();
    }
  });

  it('sends nothing to a server that does not offer STARTTLS when it is required', async () => {
    const queued = message();
    await emails.enqueue(queued);
    expect(await dispatchEmails(dispatcher({ ...smtp.settings, starttls: 'required' }))).toMatchObject({
      retrying: 1,
    });
    expect(smtp.offered()).toBe(0);
    const record = await emails.find(queued.id);
    expect(record?.status).toBe('queued');
    expect(record?.lastError).toMatch(/STARTTLS|TLS/);
  });
});

describe.each(dialects)('the worker’s e-mail job on %s', (dialect) => {
  it('on the sandbox, sends the queue to the sandbox’s own mailbox and records its answer', async () => {
    const database = await createTestDatabase(dialect);
    const clock = new TestClock();
    const log = capturingLogger();
    const stop = new AbortController();
    try {
      const config = loadConfig({ PAYLINK_NETWORK: 'sandbox' });
      expect(config.mail?.smtp).toBe('sandbox');
      const emails = emailRepository(database.handle);
      const { merchant } = await createMerchant(
        { merchants: merchantRepository(database.handle.db), clock, webhookAllowPrivate: false },
        { name: 'Demo', wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', commissionPercent: '1' },
      );
      const queued = composeEmail(
        { template: greeting, data: { name: 'Ann' }, merchantId: merchant.id, recipient: 'ann@example.com' },
        { id: randomUUID(), messageDomain: config.mail!.messageDomain, now: clock.now() },
      );
      await emails.enqueue(queued);
      const job = runEmailJob(config.mail!, { emails, clock, logger: log.logger }, stop.signal);
      // Bounded: the job's first pass runs at once.
      const record = await eventually(
        () => emails.find(queued.id),
        (found) => found?.status === 'sent',
        1200,
        25,
      );
      stop.abort();
      await job;
      expect(record).toMatchObject({
        status: 'sent',
        smtpResponse: expect.stringContaining('queued as sandbox-1'),
      });
      expect(log.text()).toContain('sandbox mailbox received an e-mail');
    } finally {
      stop.abort();
      await database.drop();
    }
  });
});
