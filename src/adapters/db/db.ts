import type { Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.ts';

// The query builder's type in a module of its own: the statements that run on the SQLite writer's connection
// (createWrites.ts, idempotencyKeys.ts) need it, and database.ts, which opens that writer, must not be imported
// back by them.

/** The query builder over Paylink's schema, on a connection, a pool or inside a transaction. */
export type Db = Kysely<DatabaseSchema>;

export type DialectName = 'sqlite' | 'postgres';
