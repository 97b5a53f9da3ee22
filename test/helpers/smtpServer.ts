import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { SmtpSettings } from '../../src/config/mail.ts';

/**
 * What the test SMTP server says to one message: take it, refuse it with this reply code, or never answer (the
 * client waits until it gives up or dies).
 */
export type SmtpAnswer =
  | { readonly accept: true }
  | { readonly refuse: number; readonly message: string }
  | { readonly hold: true };

export interface TestSmtpServer {
  /** Messages the server took, parsed by mailparser, in the order they arrived. */
  readonly received: ParsedMail[];
  /** Every DATA the server was offered, taken or not. */
  readonly offered: () => number;
  /** Decides each offered message's fate (by its index among those offered); default: accept. */
  answer: (index: number) => SmtpAnswer;
  /** Client settings that reach it (no TLS: it is on loopback). */
  readonly settings: SmtpSettings;
  close(): Promise<void>;
}

/**
 * A real SMTP server (smtp-server) on a free loopback port, as a mail provider would run one: it answers each
 * message as the test says and parses what it takes with mailparser. With `auth`, it asks for a login and takes
 * only that user and password (over plain text, which only a loopback test may do).
 */
export async function startTestSmtpServer(
  options: { readonly auth?: { readonly user: string; readonly password: string } } = {},
): Promise<TestSmtpServer> {
  const received: ParsedMail[] = [];
  let offered = 0;
  const state = { answer: (_index: number): SmtpAnswer => ({ accept: true }) };
  const server = new SMTPServer({
    logger: false,
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.password)
        callback(null, { user: auth.username });
      // Some servers echo the user name they refuse: what a client keeps of the answer must not.
      else
        callback(
          Object.assign(new Error(`Authentication failed for ${auth.username}`), { responseCode: 535 }),
        );
    },
    onData(stream, _session, callback) {
      const index = offered++;
      const answer = state.answer(index);
      if ('hold' in answer) {
        stream.resume();
        return;
      }
      simpleParser(stream)
        .then((mail) => {
          if ('refuse' in answer) {
            callback(Object.assign(new Error(answer.message), { responseCode: answer.refuse }));
            return;
          }
          received.push(mail);
          callback(null, `queued as TEST${index}`);
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    received,
    offered: () => offered,
    get answer() {
      return state.answer;
    },
    set answer(fn) {
      state.answer = fn;
    },
    settings: {
      host: '127.0.0.1',
      port,
      implicitTls: false,
      starttls: 'off',
      user: options.auth?.user,
      password: options.auth?.password,
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
