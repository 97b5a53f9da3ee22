import type { Selectable } from 'kysely';
import type { WebhookEndpointChanges, WebhookEndpointStore } from '../../app/webhooks/endpointPorts.ts';
import { type KeyMode, keyModeOf } from '../../domain/credentials.ts';
import { eventTypesOf, eventTypesText, type WebhookEndpoint } from '../../domain/webhookEndpoint.ts';
import type { Db } from './db.ts';
import type { WebhookEndpointsTable } from './schema.ts';
import { flag } from './storedValues.ts';

function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: keyModeOf(row.mode),
    url: row.url,
    description: row.description,
    eventTypes: eventTypesOf(row.event_types),
    enabled: flag(row.enabled),
    secret: row.secret,
    previousSecret:
      row.previous_secret !== null && row.previous_secret_until !== null
        ? { secret: row.previous_secret, until: new Date(row.previous_secret_until) }
        : null,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** A merchant's endpoints of one mode, deleted ones left out. */
function endpointsOf(db: Db, merchantId: string, mode: KeyMode) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('deleted_at', 'is', null);
}

/** An update of one of the merchant's endpoints of one mode: never of another's, nor of a deleted one. */
function endpointUpdate(db: Db, merchantId: string, mode: KeyMode, endpointId: string) {
  return db
    .updateTable('webhook_endpoints')
    .where('id', '=', endpointId)
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('deleted_at', 'is', null);
}

export function webhookEndpointRepository(db: Db): WebhookEndpointStore {
  const find = async (merchantId: string, mode: KeyMode, endpointId: string) => {
    const row = await endpointsOf(db, merchantId, mode).where('id', '=', endpointId).executeTakeFirst();
    return row && toEndpoint(row);
  };
  return {
    async insert(endpoint) {
      await db
        .insertInto('webhook_endpoints')
        .values({
          id: endpoint.id,
          merchant_id: endpoint.merchantId,
          mode: endpoint.mode,
          url: endpoint.url,
          description: endpoint.description,
          event_types: eventTypesText(endpoint.eventTypes),
          enabled: endpoint.enabled ? 1 : 0,
          secret: endpoint.secret,
          previous_secret: endpoint.previousSecret?.secret ?? null,
          previous_secret_until: endpoint.previousSecret?.until.toISOString() ?? null,
          created_at: endpoint.createdAt.toISOString(),
          updated_at: endpoint.updatedAt.toISOString(),
        })
        .execute();
    },
    async list(merchantId, mode) {
      const rows = await endpointsOf(db, merchantId, mode).orderBy('created_at').orderBy('id').execute();
      return rows.map(toEndpoint);
    },
    find,
    async update(merchantId, mode, endpointId, changes, now) {
      await endpointUpdate(db, merchantId, mode, endpointId)
        .set({ ...columnsOf(changes), updated_at: now.toISOString() })
        .execute();
      return find(merchantId, mode, endpointId);
    },
    async rotateSecret(merchantId, mode, endpointId, newSecret, previousUntil, now) {
      // SET reads the row as it was: the secret being replaced becomes the previous one, in one statement. A
      // rotation during an overlap so ends the older secret at once: at most two ever sign.
      await endpointUpdate(db, merchantId, mode, endpointId)
        .set((eb) => ({
          previous_secret: eb.ref('secret'),
          previous_secret_until: previousUntil.toISOString(),
          secret: newSecret,
          updated_at: now.toISOString(),
        }))
        .execute();
      return find(merchantId, mode, endpointId);
    },
    async delete(merchantId, mode, endpointId, now) {
      const deleted = await endpointUpdate(db, merchantId, mode, endpointId)
        .set({ deleted_at: now.toISOString(), enabled: 0, updated_at: now.toISOString() })
        .executeTakeFirst();
      return Number(deleted.numUpdatedRows) === 1;
    },
  };
}

function columnsOf(changes: WebhookEndpointChanges) {
  return {
    ...(changes.url !== undefined ? { url: changes.url } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.eventTypes !== undefined ? { event_types: eventTypesText(changes.eventTypes) } : {}),
    ...(changes.enabled !== undefined ? { enabled: changes.enabled ? 1 : 0 } : {}),
  };
}
