import type { Insertable, Selectable } from 'kysely';
import type { LinkStore } from '../../app/links/ports.ts';
import { keyModeOf } from '../../domain/credentials.ts';
import { findCurrency } from '../../domain/currencies.ts';
import { lineItemsFromText, lineItemsText } from '../../domain/lineItems.ts';
import { metadataFromText, metadataText } from '../../domain/metadata.ts';
import type { Money } from '../../domain/money.ts';
import type { LinkPrice, PaymentLink } from '../../domain/paymentLink.ts';
import { isoTimestamp } from '../../domain/timestamp.ts';
import type { DatabaseHandle, Db } from './database.ts';
import { olderThan } from './keyset.ts';
import { paymentRow, referenceChecked } from './paymentRepository.ts';
import type { PaymentLinksTable } from './schema.ts';
import { dateOrNull } from './storedValues.ts';

function toLink(row: Selectable<PaymentLinksTable>): PaymentLink {
  const currency = findCurrency(row.currency);
  if (!currency) throw new Error(`payment link ${row.id} has an unknown currency`);
  const money = (text: string | null): Money => {
    if (text === null) throw new Error(`payment link ${row.id} lacks an amount`);
    return { currency, minorUnits: BigInt(text) };
  };
  const price: LinkPrice =
    row.price_type === 'fixed'
      ? { type: 'fixed', unit: money(row.amount_minor_units), maxQuantity: Number(row.max_quantity ?? 1) }
      : {
          type: 'open',
          currency,
          min: money(row.min_minor_units),
          max: money(row.max_minor_units),
          suggested: (JSON.parse(row.suggested_minor_units ?? '[]') as string[]).map(money),
        };
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: keyModeOf(row.mode),
    title: row.title,
    description: row.description,
    imageUrl: row.image_url,
    price,
    deactivatedAt: dateOrNull(row.deactivated_at),
    maxUses: row.max_uses === null ? null : Number(row.max_uses),
    endsAt: dateOrNull(row.ends_at),
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    metadata: metadataFromText(row.metadata),
    lineItems: lineItemsFromText(row.line_items, currency),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function linkRow(link: PaymentLink): Insertable<PaymentLinksTable> {
  const { price } = link;
  return {
    id: link.id,
    merchant_id: link.merchantId,
    mode: link.mode,
    title: link.title,
    description: link.description,
    image_url: link.imageUrl,
    price_type: price.type,
    currency: price.type === 'fixed' ? price.unit.currency.code : price.currency.code,
    amount_minor_units: price.type === 'fixed' ? price.unit.minorUnits.toString() : null,
    max_quantity: price.type === 'fixed' ? price.maxQuantity : null,
    min_minor_units: price.type === 'open' ? price.min.minorUnits.toString() : null,
    max_minor_units: price.type === 'open' ? price.max.minorUnits.toString() : null,
    suggested_minor_units:
      price.type === 'open' ? JSON.stringify(price.suggested.map((s) => s.minorUnits.toString())) : null,
    max_uses: link.maxUses,
    ends_at: link.endsAt && isoTimestamp(link.endsAt),
    success_url: link.successUrl,
    cancel_url: link.cancelUrl,
    metadata: metadataText(link.metadata),
    line_items: lineItemsText(link.lineItems),
    deactivated_at: link.deactivatedAt && isoTimestamp(link.deactivatedAt),
    created_at: isoTimestamp(link.createdAt),
    updated_at: isoTimestamp(link.updatedAt),
  };
}

/** The link's payments that count against its uses at `now`: paid, processing, and pending not yet expired. */
async function usageOf(db: Db, linkId: string, now: Date) {
  const rows = await db
    .selectFrom('payments')
    .select(['status', 'expires_at'])
    .where('link_id', '=', linkId)
    .where('kind', '=', 'payment')
    .where((eb) =>
      eb.or([
        eb('status', 'in', ['paid', 'processing']),
        eb.and([eb('status', '=', 'pending'), eb('expires_at', '>', now.toISOString())]),
      ]),
    )
    .execute();
  const paid = rows.filter((row) => row.status === 'paid').length;
  return { paid, open: rows.length - paid };
}

export function linkRepository({ db, dialect }: Pick<DatabaseHandle, 'db' | 'dialect'>): LinkStore {
  const find = async (merchantId: string, id: string, mode: string) => {
    const row = await db
      .selectFrom('payment_links')
      .selectAll()
      .where('id', '=', id)
      .where('merchant_id', '=', merchantId)
      .where('mode', '=', keyModeOf(mode))
      .executeTakeFirst();
    return row && toLink(row);
  };
  return {
    async insert(link) {
      await db.insertInto('payment_links').values(linkRow(link)).execute();
    },
    async find(id) {
      const row = await db.selectFrom('payment_links').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toLink(row);
    },
    findForMerchant: find,
    async listForMerchant({ merchantId, mode, after, limit }) {
      let select = db
        .selectFrom('payment_links')
        .selectAll()
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode);
      if (after !== undefined) select = select.where(olderThan(after));
      const rows = await select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toLink);
    },
    async deactivate(merchantId, id, mode, at) {
      await db
        .updateTable('payment_links')
        .set({ deactivated_at: isoTimestamp(at), updated_at: isoTimestamp(at) })
        .where('id', '=', id)
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('deactivated_at', 'is', null)
        .execute();
      return find(merchantId, id, mode);
    },
    async reactivate(merchantId, id, mode, at) {
      await db
        .updateTable('payment_links')
        .set({ deactivated_at: null, updated_at: isoTimestamp(at) })
        .where('id', '=', id)
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .where('deactivated_at', 'is not', null)
        .execute();
      return find(merchantId, id, mode);
    },
    async update(merchantId, id, mode, changes, at) {
      await db
        .updateTable('payment_links')
        .set({
          title: changes.title,
          description: changes.description,
          max_uses: changes.maxUses,
          ends_at: changes.endsAt && isoTimestamp(changes.endsAt),
          updated_at: isoTimestamp(at),
        })
        .where('id', '=', id)
        .where('merchant_id', '=', merchantId)
        .where('mode', '=', mode)
        .execute();
      return find(merchantId, id, mode);
    },
    usage: (linkId, now) => usageOf(db, linkId, now),
    async insertPaymentWithinUses(payment, maxUses, now) {
      const linkId = payment.linkId;
      if (linkId === null) throw new Error(`payment ${payment.id} has no link`);
      const inserted = db.transaction().execute(async (trx) => {
        // PostgreSQL: the link's row is the lock payers of one link queue on. SQLite: one connection of this
        // process runs one transaction at a time, and the writer thread's commits wait on its lock.
        let lock = trx.selectFrom('payment_links').select('id').where('id', '=', linkId);
        if (dialect === 'postgres') lock = lock.forUpdate();
        await lock.execute();
        const usage = await usageOf(trx, linkId, now);
        if (usage.paid + usage.open >= maxUses) return false;
        await trx.insertInto('payments').values(paymentRow(payment)).execute();
        return true;
      });
      await referenceChecked(payment, inserted);
      return inserted;
    },
    async paidTotals(linkId) {
      const rows = await db
        .selectFrom('payments')
        .select('amount_received_base_units')
        .where('link_id', '=', linkId)
        .where('kind', '=', 'payment')
        .where('status', '=', 'paid')
        .execute();
      // Summed as bigint here: money is integer text, and no SQL sum of text is exact on both databases.
      let received = 0n;
      for (const row of rows) received += BigInt(row.amount_received_base_units);
      return { count: rows.length, receivedBaseUnits: received };
    },
  };
}
