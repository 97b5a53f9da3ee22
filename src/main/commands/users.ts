import type { Command } from 'commander';
import {
  createUser,
  describeUser,
  disableUser,
  enableUser,
  passwordLinkUrl,
  removeSecondFactor,
  resetPassword,
} from '../../app/dashboard/users.ts';
import { systemClock } from '../../app/shared/ports.ts';
import type { Config } from '../../config/index.ts';
import { out } from '../terminal.ts';
import { withStores } from '../wiring.ts';

/** `paylink user …`: the people who sign in to the dashboard (operators only). */
export function registerUserCommands(program: Command, config: () => Config): void {
  const user = program
    .command('user')
    .description('dashboard users: operators, merchant users and their counter staff (pos)');
  const deps = (stores: Parameters<Parameters<typeof withStores>[1]>[0]) => ({
    ...stores,
    clock: systemClock,
  });
  const printLink = (
    cfg: Config,
    result: { user: Parameters<typeof describeUser>[0]; token: string; expiresAt: Date },
    json: boolean | undefined,
  ) => {
    const link = passwordLinkUrl(cfg.baseUrl, result.token);
    if (json)
      return out(
        JSON.stringify({
          user: describeUser(result.user),
          set_password_url: link,
          expires_at: result.expiresAt.toISOString(),
        }),
      );
    out(`User ${result.user.id} (${result.user.email}, ${result.user.role}).`);
    out(`Send them this link to set their password; it works once, until ${result.expiresAt.toISOString()}:`);
    out(`  ${link}`);
  };

  user
    .command('create')
    .description('create a user and print a one-time link to set the password (valid 24 h)')
    .requiredOption('--email <email>', 'their e-mail address (their sign-in name)')
    .requiredOption(
      '--role <role>',
      "operator, merchant, or pos (a merchant's counter staff: the point of sale only)",
    )
    .option('--merchant <public_id>', 'for a merchant or pos user: the merchant')
    .option('--json', 'print JSON')
    .action(async (options: { email: string; role: string; merchant?: string; json?: boolean }) => {
      const cfg = config();
      const result = await withStores(cfg, (stores) =>
        createUser(deps(stores), { email: options.email, role: options.role, merchantId: options.merchant }),
      );
      printLink(cfg, result, options.json);
    });

  user
    .command('list')
    .description('every user, oldest first')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const users = (await withStores(config(), (stores) => stores.users.list())).map(describeUser);
      if (options.json) return out(JSON.stringify({ users }));
      if (users.length === 0) return out('No users.');
      for (const u of users)
        out(
          `${u.id}  ${u.status.padEnd(8)}  ${u.role.padEnd(8)}  ${u.email}${u.merchant_id ? `  merchant ${u.merchant_id}` : ''}${u.password_set ? '' : '  (no password yet)'}`,
        );
    });

  user
    .command('reset-password <user_id>')
    .description(
      'print a new one-time link to set the password; earlier links stop working, the current password works until then',
    )
    .option('--json', 'print JSON')
    .action(async (userId: string, options: { json?: boolean }) => {
      const cfg = config();
      printLink(cfg, await withStores(cfg, (stores) => resetPassword(deps(stores), userId)), options.json);
    });

  user
    .command('disable <user_id>')
    .description('refuse their sign-in and end their sessions now')
    .action(async (userId: string) => {
      const disabled = await withStores(config(), (stores) => disableUser(deps(stores), userId));
      out(`User ${disabled.id} disabled; their sessions have ended.`);
    });

  user
    .command('remove-second-factor <user_id>')
    .description('turn off their authenticator code (a lost phone); their sessions end')
    .action(async (userId: string) => {
      const changed = await withStores(config(), (stores) => removeSecondFactor(deps(stores), userId));
      out(`User ${changed.id} signs in with the password alone until they set up a second factor again.`);
    });

  user
    .command('enable <user_id>')
    .description('let a disabled user sign in again')
    .action(async (userId: string) => {
      const enabled = await withStores(config(), (stores) => enableUser(deps(stores), userId));
      out(`User ${enabled.id} enabled.`);
    });
}
