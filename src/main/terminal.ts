import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a CLI command writes its output and its complaints. */
export interface Terminal {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processTerminal: Terminal = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

// The process's streams, unless a caller runs a command with its own (`main(argv, { terminal })`): the test
// suite runs most commands in its own process, where starting a new Node for each would cost seconds.
const current = new AsyncLocalStorage<Terminal>();

export function terminal(): Terminal {
  return current.getStore() ?? processTerminal;
}

export function withTerminal<T>(given: Terminal | undefined, run: () => Promise<T>): Promise<T> {
  return given === undefined ? run() : current.run(given, run);
}

/** One line of a command's output. */
export function out(text: string): void {
  terminal().stdout(`${text}\n`);
}

/** One line on stderr: a warning or an error, never part of the output a script parses. */
export function complain(text: string): void {
  terminal().stderr(`${text}\n`);
}
