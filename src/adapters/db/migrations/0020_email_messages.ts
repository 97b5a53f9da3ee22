import { type Kysely, sql } from 'kysely';

/**
 * The e-mail queue (decision 0021). A message is stored rendered — subject, text and HTML as the customer will
 * read them — when the event that causes it is committed, in the same transaction; the worker only sends what
 * is here. Its delivery state lives on the row, as webhook events' does: a claim with a lease, the attempt
 * count as the claim's fencing token, the next attempt's time, the last error (never a secret) and its fate.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('email_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    // What the message is about; both null for none (a message about a merchant's account, say).
    .addColumn('payment_id', 'text', (c) => c.references('payments.id'))
    .addColumn('refund_id', 'text', (c) => c.references('refunds.id'))
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().defaultTo('queued').check(sql`status in ('queued', 'sending', 'sent', 'failed')`),
    )
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    // Null: never attempted, due at once.
    .addColumn('next_attempt_at', 'text')
    .addColumn('claimed_until', 'text')
    .addColumn('last_error', 'text')
    // The SMTP reply code of the last refusal, when there was one.
    .addColumn('last_response_code', 'integer')
    // Our Message-ID header, the same on every attempt, and what the server answered when it took the message
    // (its own queue id is in there): what an operator quotes to the mail provider.
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('smtp_response', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('failed_at', 'text')
    .execute();
  await db.schema
    .createIndex('email_messages_due')
    .on('email_messages')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema.createIndex('email_messages_payment').on('email_messages').column('payment_id').execute();
  await db.schema
    .createIndex('email_messages_merchant_created')
    .on('email_messages')
    .columns(['merchant_id', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('email_messages').execute();
}
