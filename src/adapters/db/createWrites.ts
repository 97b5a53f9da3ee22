import type SQLite from 'better-sqlite3';
import type { EmailMessage } from '../../app/email/ports.ts';
import type { Db } from './db.ts';
import { insertEmailMessage } from './emailOutbox.ts';
import {
  type ClaimRequest,
  claimIdempotencyKey,
  type ReleaseRequest,
  releaseIdempotencyKey,
} from './idempotencyKeys.ts';

/** A value SQLite binds as it is: what `paymentRow` puts in a row. */
export type SqliteValue = string | number | null;

/** A payment row as `paymentRow` makes it: column name to value. */
export type PaymentRowValues = Readonly<Record<string, SqliteValue>>;

/**
 * A new payment: its row's values in the order of `columns` (the column names joined by commas), and the
 * idempotency key it answers, completed in the same transaction (a key never names a payment that was not
 * committed, nor is a committed payment's key left looking unused). Values and one string of names rather than
 * a row object: this crosses to the writer's thread, and a row's 35 names one by one cost more to copy there than
 * its values.
 */
export interface PaymentInsert {
  readonly columns: string;
  readonly values: readonly SqliteValue[];
  readonly completedKey?: CompletedKey;
  /** The payment request e-mail the create asked for (`send_email`), queued in the payment's transaction. */
  readonly email?: EmailMessage;
}

export interface CompletedKey {
  readonly paymentId: string;
  readonly merchantId: string;
  /** As stored: `storedIdempotencyKey(mode, key)`. */
  readonly storedKey: string;
}

/** The writes of a create, committed by the SQLite writer (sqliteWriter.ts). */
export type CreateWrite =
  | { readonly kind: 'insert'; readonly insert: PaymentInsert }
  | { readonly kind: 'claim'; readonly claim: ClaimRequest }
  | { readonly kind: 'release'; readonly release: ReleaseRequest };

/**
 * The row's values in the order of `columns`, which are the first row's (every row `paymentRow` makes has the
 * same columns, in the same order). A row with other columns is a programming error, refused.
 */
export function rowValues(columns: readonly string[], row: PaymentRowValues): SqliteValue[] {
  const values: SqliteValue[] = [];
  for (const column in row) {
    if (column !== columns[values.length]) break;
    values.push(row[column]!);
  }
  if (values.length !== columns.length || Object.keys(row).length !== columns.length) {
    throw new Error(`a payment row's columns differ from the writer's: ${Object.keys(row).join(', ')}`);
  }
  return values;
}

const COLUMNS = /^[a-z_]+(,[a-z_]+)*$/;

/**
 * Runs writes in one transaction, in order (one commit, one fsync, however many), and gives each one's result:
 * a claim's outcome, nothing for the others. The claims and releases are the same statements PostgreSQL runs
 * (idempotencyRepository.ts); the payment insert is prepared once per column list, with its values bound in
 * place: Kysely built and compiled a 35-column insert anew for every payment.
 *
 * `sqlite` is the connection `db` runs on: the insert's statements run inside `db`'s transaction.
 */
export function createWriteRunner(
  sqlite: SQLite.Database,
  db: Db,
): (writes: readonly CreateWrite[]) => Promise<unknown[]> {
  const inserts = new Map<string, SQLite.Statement>();
  let complete: SQLite.Statement | undefined;
  const insertFor = (columns: string): SQLite.Statement => {
    let statement = inserts.get(columns);
    if (!statement) {
      // The names are the code's own (paymentRow's keys), never input; checked anyway, as they are spliced in.
      if (!COLUMNS.test(columns)) throw new Error(`not a list of column names: ${JSON.stringify(columns)}`);
      const names = columns.split(',');
      statement = sqlite.prepare(
        `insert into "payments" (${names.map((name) => `"${name}"`).join(', ')}) values (${names.map(() => '?').join(', ')})`,
      );
      inserts.set(columns, statement);
    }
    return statement;
  };
  const insertPayment = ({ columns, values, completedKey }: PaymentInsert) => {
    insertFor(columns).run(values);
    if (!completedKey) return;
    complete ??= sqlite.prepare(
      'update "idempotency_keys" set "payment_id" = ? where "merchant_id" = ? and "key" = ?',
    );
    complete.run(completedKey.paymentId, completedKey.merchantId, completedKey.storedKey);
  };
  return (writes) =>
    db.transaction().execute(async (trx) => {
      const results: unknown[] = [];
      for (const write of writes) {
        switch (write.kind) {
          case 'insert':
            insertPayment(write.insert);
            if (write.insert.email) await insertEmailMessage(trx, write.insert.email);
            results.push(undefined);
            break;
          case 'claim':
            results.push(await claimIdempotencyKey(trx, write.claim));
            break;
          case 'release':
            await releaseIdempotencyKey(trx, write.release);
            results.push(undefined);
            break;
        }
      }
      return results;
    });
}
