/**
 * The SQLite writer's thread (sqliteWriter.ts): its own connection to the store, and the requests it is sent,
 * answered in the order they came. The writes that queued up while it was committing are committed together
 * (group commit: one transaction, one fsync), and answered in one message.
 */

import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { Kysely, SqliteDialect } from 'kysely';
import { createWriteRunner } from './createWrites.ts';
import type { DatabaseSchema } from './schema.ts';
import { connectionDurability, openSqliteConnection, reusingStatements } from './sqliteConnection.ts';
import type { WriterReply, WriterRequest, WriterThreadData } from './sqliteWriter.ts';

/** Writes per transaction at most: a long queue is committed in several. */
const MAX_GROUP = 100;

type Write = Extract<WriterRequest, { kind: 'write' }>;

const port: MessagePort = parentPort!;
const sqlite = openSqliteConnection((workerData as WriterThreadData).path);
const db = new Kysely<DatabaseSchema>({
  dialect: new SqliteDialect({ database: reusingStatements(sqlite) }),
});
const run = createWriteRunner(sqlite, db);
const queue: WriterRequest[] = [];
let running = false;
let closed = false;

port.on('message', (request: WriterRequest) => {
  queue.push(request);
  if (!running) void work();
});

/** One request at a time, in order; the writes waiting together are committed together. */
async function work(): Promise<void> {
  running = true;
  while (queue.length > 0 && !closed) {
    // Everything that queued up behind it, taken at once: what arrived during the last commit.
    for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port)) {
      queue.push(next.message as WriterRequest);
    }
    const first = queue[0]!;
    if (first.kind !== 'write') {
      queue.shift();
      answerOther(first);
      continue;
    }
    let count = 1;
    while (count < Math.min(queue.length, MAX_GROUP) && queue[count]!.kind === 'write') count += 1;
    await commitGroup(queue.splice(0, count) as Write[]);
  }
  running = false;
}

/** Commits the group in one transaction; if that fails, each alone, so one bad write fails only its own caller. */
async function commitGroup(group: readonly Write[]): Promise<void> {
  try {
    const results = await run(group.map(({ write }) => write));
    reply({ done: group.map(({ id }) => id), results });
  } catch (error) {
    if (group.length === 1) {
      reply(failure(group[0]!.id, error));
      return;
    }
    for (const one of group) await commitGroup([one]);
  }
}

function answerOther(request: Exclude<WriterRequest, Write>): void {
  if (request.kind === 'durability') {
    reply({ done: [request.id], results: [connectionDurability(sqlite)] });
    return;
  }
  closed = true;
  sqlite.close();
  reply({ done: [request.id], results: [undefined] });
  port.close();
}

function failure(id: number, error: unknown): WriterReply {
  const { message, code } = error as { message?: unknown; code?: unknown };
  return { failed: id, message: String(message ?? error), ...(typeof code === 'string' ? { code } : {}) };
}

function reply(message: WriterReply): void {
  port.postMessage(message);
}
