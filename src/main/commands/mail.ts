import { type Command, Option } from 'commander';
import { describeEmail, getEmail, listEmails } from '../../app/email/listEmails.ts';
import type { Config } from '../../config/index.ts';
import { EMAIL_STATUSES } from '../../domain/email.ts';
import { out } from '../terminal.ts';
import { withStores } from '../wiring.ts';
import { type LogListFlags, logQuery } from './logListing.ts';

/** `paylink mail …`: the e-mail log, and what each message said (on the sandbox: what was "sent"). */
export function registerMailCommands(program: Command, config: () => Config): void {
  const mail = program
    .command('mail')
    .description('e-mail to customers: the log of each message and its fate');

  mail
    .command('list')
    .description('list e-mail messages, newest first, with their state')
    .option('--payment <id>', 'only the messages about this payment')
    .option('--merchant <public_id>', 'only the messages of this merchant')
    .addOption(new Option('--status <status>', 'only messages in this state').choices(EMAIL_STATUSES))
    .option('--limit <n>', 'at most this many messages (1–100)', '50')
    .option('--json', 'print JSON')
    .action(async (options: LogListFlags) => {
      const records = await withStores(config(), (stores) => listEmails(stores, logQuery(options)));
      const views = records.map((record) => describeEmail(record));
      if (options.json) return out(JSON.stringify({ emails: views }));
      if (views.length === 0) return out('No e-mail matches.');
      for (const v of views) {
        const fate = v.status === 'sent' ? `sent ${v.sent_at}` : v.status;
        const next = v.next_attempt_at ? `  next ${v.next_attempt_at}` : '';
        out(`${v.id}  ${v.kind.padEnd(15)}  ${fate}  to ${v.to}  "${v.subject}"  ${v.created_at}${next}`);
      }
    });

  mail
    .command('show <id>')
    .description('show a message as the customer read it (text part), with its delivery state')
    .option('--json', 'print JSON, with the HTML part too')
    .action(async (id: string, options: { json?: boolean }) => {
      const record = await withStores(config(), (stores) => getEmail(stores, id));
      if (options.json) return out(JSON.stringify(describeEmail(record, true)));
      const view = describeEmail(record);
      out(`${view.id}  ${view.kind}  ${view.status}  (${view.attempt_count} attempt(s))`);
      if (view.last_error) out(`Last error: ${view.last_error}`);
      if (view.smtp_response) out(`Server:     ${view.smtp_response}`);
      out(`To:         ${view.to}`);
      out(`Subject:    ${view.subject}`);
      out(`Language:   ${view.language}`);
      out('');
      out(record.text);
    });
}
