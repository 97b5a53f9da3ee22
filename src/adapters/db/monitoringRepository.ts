import { sql } from 'kysely';
import type { MonitoringStore } from '../../app/ports.ts';
import type { Db } from './database.ts';

/** Delivery statuses of an event still owed a delivery (domain/webhookDelivery.ts). */
const OWED = ['pending', 'delivering'];

/**
 * Aggregate reads for /metrics and /readyz. Each is one grouped query served by an index whose first column is
 * the grouped one (payments_status_expires, events_delivery_due), so a scrape costs an index scan, not a table scan.
 */
export function monitoringRepository(db: Db): MonitoringStore {
  return {
    async ping() {
      await sql`select 1`.execute(db);
    },
    async countPaymentsByStatus() {
      const rows = await db
        .selectFrom('payments')
        .select((eb) => ['status', eb.fn.countAll<string | number>().as('count')])
        .groupBy('status')
        .execute();
      return new Map(rows.map((row) => [row.status, Number(row.count)]));
    },
    async webhookQueue() {
      const rows = await db
        .selectFrom('events')
        .select((eb) => ['delivery_status', eb.fn.countAll<string | number>().as('count')])
        .groupBy('delivery_status')
        .execute();
      const oldest = await db
        .selectFrom('events')
        .select((eb) => eb.fn.min('created_at').as('oldest'))
        .where('delivery_status', 'in', OWED)
        .executeTakeFirst();
      return {
        byStatus: new Map(rows.map((row) => [row.delivery_status, Number(row.count)])),
        oldestOwedAt: oldest?.oldest ? new Date(oldest.oldest) : null,
      };
    },
  };
}
