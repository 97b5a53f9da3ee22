import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailRepository } from '../../src/adapters/db/emailRepository.ts';
import { merchantRepository } from '../../src/adapters/db/merchantRepository.ts';
import { createSmtpTransport } from '../../src/adapters/outbound/smtpTransport.ts';
import { composeEmail } from '../../src/app/email/composeEmail.ts';
import { dispatchEmails } from '../../src/app/email/dispatchEmails.ts';
import type { EmailTemplate } from '../../src/app/email/ports.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { builtPaylinkBin } from '../helpers/builtCli.ts';
import { runCli } from '../helpers/cli.ts';
import { TestClock } from '../helpers/clock.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtpServer.ts';

const note: EmailTemplate<{ readonly line: string }> = {
  kind: 'receipt',
  languages: ['en'],
  render: ({ line }) => ({ subject: `Receipt: ${line}`, text: `Thank you. ${line}`, html: `<p>${line}</p>` }),
};

describe.each(dialects)('paylink mail … on %s', (dialect) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let env: Record<string, string>;
  let sent: string;
  let failed: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    smtp = await startTestSmtpServer();
    env = { PAYLINK_DATABASE_URL: database.url, PAYLINK_NETWORK: 'polygon' };
    const clock = new TestClock();
    const emails = emailRepository(database.handle);
    const { merchant } = await createMerchant(
      { merchants: merchantRepository(database.handle.db), clock, webhookAllowPrivate: false },
      { name: 'Shop', wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', commissionPercent: '1' },
    );
    const queue = async (recipient: string, line: string) => {
      const message = composeEmail(
        { template: note, data: { line }, merchantId: merchant.id, recipient },
        { id: randomUUID(), messageDomain: 'shop.example', now: clock.now() },
      );
      await emails.enqueue(message);
      clock.advance(1_000);
      return message.id;
    };
    sent = await queue('ann@example.com', 'order 1');
    failed = await queue('nobody@example.com', 'order 2');
    smtp.answer = (index) => (index === 1 ? { refuse: 550, message: 'No such user' } : { accept: true });
    const transport = createSmtpTransport(smtp.settings, 'no-reply@shop.example');
    await dispatchEmails({
      emails,
      transport,
      clock,
      logger: capturingLogger().logger,
      config: { retryScheduleMs: [1_000], leaseMs: 60_000 },
    });
    await transport.close();
  });
  afterAll(async () => {
    await smtp.close();
    await database.drop();
  });

  it('lists messages newest first with their fate, filtered by state', async () => {
    const all = await runCli(['mail', 'list', '--json'], env);
    expect(all.stderr).toBe('');
    expect(JSON.parse(all.stdout).emails).toMatchObject([
      { id: failed, status: 'failed', last_response_code: 550, to: 'nobody@example.com' },
      { id: sent, status: 'sent', smtp_response: expect.stringContaining('queued as'), kind: 'receipt' },
    ]);
    const text = await runCli(['mail', 'list', '--status', 'sent'], env);
    expect(text.stdout).toContain(sent);
    expect(text.stdout).toContain('"Receipt: order 1"');
    expect(text.stdout).not.toContain(failed);
    expect((await runCli(['mail', 'list', '--status', 'lost'], env)).code).not.toBe(0);
  });

  it('shows what the customer read, and says clearly when there is no such message', async () => {
    const shown = await runCli(['mail', 'show', sent], env);
    expect(shown.stdout).toContain('Subject:    Receipt: order 1');
    expect(shown.stdout).toContain('Thank you. order 1');
    const json = JSON.parse((await runCli(['mail', 'show', failed, '--json'], env)).stdout);
    expect(json).toMatchObject({ status: 'failed', html: '<p>order 2</p>' });
    expect(json.last_error).toContain('No such user');
    const missing = await runCli(['mail', 'show', 'nope'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('E-mail not found');
  });

  it('ends quietly with status 0 when its reader closes the pipe early (`paylink mail list | head`)', async () => {
    // The reader goes away before the command has written its first line, as `head` does once it has its
    // lines: every write after that meets a closed pipe (EPIPE).
    const child = spawn(process.execPath, [await builtPaylinkBin(), 'mail', 'list'], {
      env: { PATH: process.env.PATH ?? '', PAYLINK_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
    expect(stderr).not.toContain('EPIPE');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
