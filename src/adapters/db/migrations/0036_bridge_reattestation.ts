import type { Kysely } from 'kysely';

/**
 * A fast attestation that expired before its mint (docs/decisions/0036-an-expired-attestation-re-attested.md):
 * `expired_at` is when the mint step found the attested message's `expirationBlock` reached on the home chain
 * and sent the transfer back to `attest`; `reattest_requested_at` is when Circle accepted the request to sign it
 * again at finalized level. Both are cleared when the re-signed message is recorded. Transfers under way keep
 * null: nothing of theirs expired yet.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and must not depend on today's types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('bridge_transfers').addColumn('expired_at', 'text').execute();
  await db.schema.alterTable('bridge_transfers').addColumn('reattest_requested_at', 'text').execute();
}
