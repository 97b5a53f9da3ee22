import { type Kysely, sql } from 'kysely';

/**
 * A payment's short reference (docs/decisions/0053-dashboard-product.md): `PL-` and 8 characters of Crockford's
 * base 32 made of the id's last 40 bits, stored so that a search finds it on an index and so that a merchant's
 * references are unique (led by the reference, the index also serves an operator's search over every merchant).
 * The payments made before get theirs here; the rare second payment of a merchant whose reference is already
 * taken keeps none (it is found by its id). The customer's e-mail is indexed for the dashboard's search, as a
 * search writes it (`lower`), led by the address for the same reason.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('reference', 'text').execute();
  await fillReferences(db);
  await db.schema
    .createIndex('payments_reference_merchant')
    .on('payments')
    .columns(['reference', 'merchant_id'])
    .unique()
    .execute();
  await sql`create index payments_customer_email_merchant on payments (lower(customer_email), merchant_id)`.execute(
    db,
  );
}

const BATCH = 1_000;

// biome-ignore lint/suspicious/noExplicitAny: as above
async function fillReferences(db: Kysely<any>): Promise<void> {
  const taken = new Set<string>();
  let after = '';
  for (;;) {
    const rows: { id: string; merchant_id: string }[] = await db
      .selectFrom('payments')
      .select(['id', 'merchant_id'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      const reference = referenceOf(row.id);
      if (reference === undefined || taken.has(`${row.merchant_id} ${reference}`)) continue;
      taken.add(`${row.merchant_id} ${reference}`);
      await db.updateTable('payments').set({ reference }).where('id', '=', row.id).execute();
    }
    after = rows.at(-1)!.id;
  }
}

/** The reference as the code of this migration's day writes it (domain/paymentReference.ts). */
function referenceOf(id: string): string | undefined {
  const hex = id.replaceAll('-', '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return undefined;
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let value = BigInt(`0x${hex.slice(-10)}`);
  let text = '';
  for (let i = 0; i < 8; i++, value >>= 5n) text = alphabet[Number(value & 31n)] + text;
  return `PL-${text.slice(0, 4)}-${text.slice(4)}`;
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_customer_email_merchant').execute();
  await db.schema.dropIndex('payments_reference_merchant').execute();
  await db.schema.alterTable('payments').dropColumn('reference').execute();
}
