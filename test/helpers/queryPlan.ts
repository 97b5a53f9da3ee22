import { CompiledQuery, createQueryId, type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import type { TestDatabase } from './database.ts';

/** A handle whose every query is also pushed to `sent`, so that a test can ask for the plan of the last one. */
export function recordingHandle(database: TestDatabase, sent: RootOperationNode[]): DatabaseHandle {
  const record: KyselyPlugin = {
    transformQuery: ({ node }) => {
      sent.push(node);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { ...database.handle, db: database.handle.db.withPlugin(record) };
}

/**
 * The plan of the last query sent. PostgreSQL, whose test tables are nearly empty, is kept from answering with a
 * sequential scan, which it would prefer on so few rows; the index condition it then shows is what it can use.
 */
export async function planOfLast(
  database: TestDatabase,
  sent: readonly RootOperationNode[],
): Promise<string> {
  const { db, dialect } = database.handle;
  const node = sent.at(-1);
  if (!node) throw new Error('no query was sent');
  const query = db.getExecutor().compileQuery(node, createQueryId());
  const explain = dialect === 'sqlite' ? 'explain query plan' : 'explain';
  return db.connection().execute(async (connection) => {
    if (dialect === 'postgres') await sql`set enable_seqscan = off`.execute(connection);
    try {
      const plan = await connection.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]),
      );
      return plan.rows.map((row) => row.detail ?? row['QUERY PLAN']).join('\n');
    } finally {
      if (dialect === 'postgres') await sql`reset enable_seqscan`.execute(connection);
    }
  });
}
