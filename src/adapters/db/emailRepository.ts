import type { Selectable } from 'kysely';
import type { EmailJob, EmailMessage, EmailRecord, EmailStore } from '../../app/email/ports.ts';
import { EMAIL_KINDS, EMAIL_STATUSES } from '../../domain/email.ts';
import type { DatabaseHandle } from './database.ts';
import { insertEmailMessage } from './emailOutbox.ts';
import { leaseDue, leaseWindow } from './leaseClaim.ts';
import { newestFirst } from './logListing.ts';
import type { EmailMessagesTable } from './schema.ts';
import { dateOrNull, oneOf } from './storedValues.ts';

/** Bound on one claim (and on a listing): every statement stays small. */
const MAX_ROWS = 500;

function toMessage(row: Selectable<EmailMessagesTable>): EmailMessage {
  return {
    id: row.id,
    kind: oneOf(EMAIL_KINDS, row.kind, 'e-mail kind'),
    merchantId: row.merchant_id,
    paymentId: row.payment_id,
    refundId: row.refund_id,
    recipient: row.recipient,
    language: row.language,
    subject: row.subject,
    text: row.text_body,
    html: row.html_body,
    messageId: row.message_id,
    createdAt: new Date(row.created_at),
  };
}

function toRecord(row: Selectable<EmailMessagesTable>): EmailRecord {
  return {
    ...toMessage(row),
    status: oneOf(EMAIL_STATUSES, row.status, 'e-mail status'),
    attemptCount: Number(row.attempt_count),
    nextAttemptAt: dateOrNull(row.next_attempt_at),
    lastError: row.last_error,
    lastResponseCode: row.last_response_code === null ? null : Number(row.last_response_code),
    smtpResponse: row.smtp_response,
    sentAt: dateOrNull(row.sent_at),
    failedAt: dateOrNull(row.failed_at),
  };
}

export function emailRepository(handle: DatabaseHandle): EmailStore {
  const { db, dialect } = handle;
  return {
    enqueue: (message) => db.transaction().execute((trx) => insertEmailMessage(trx, message)),

    async claimDue(now, limit, leaseMs) {
      const { nowText, leasedUntil } = leaseWindow(now, limit, MAX_ROWS, leaseMs);
      return db.transaction().execute(async (trx) => {
        const due = trx
          .selectFrom('email_messages')
          .select('id')
          .where((eb) =>
            eb.or([
              eb.and([
                eb('status', '=', 'queued'),
                eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', nowText)]),
              ]),
              // Its worker's lease ran out: presumed dead before it could record a result.
              eb.and([eb('status', '=', 'sending'), eb('claimed_until', '<=', nowText)]),
            ]),
          );
        const claimed = await leaseDue(
          trx,
          { table: 'email_messages', inFlight: { column: 'status', value: 'sending' } },
          due,
          { limit, dialect, leasedUntil },
        );
        if (claimed.length === 0) return [];
        const rows = await trx
          .selectFrom('email_messages')
          .selectAll()
          .where('id', 'in', claimed)
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        return rows.map((row): EmailJob => ({ ...toMessage(row), attemptNumber: Number(row.attempt_count) }));
      });
    },

    async completeAttempt(job, result) {
      const at = result.at.toISOString();
      const updated = await db
        .updateTable('email_messages')
        .set({
          status: result.status,
          next_attempt_at: result.nextAttemptAt?.toISOString() ?? null,
          claimed_until: null,
          last_error: result.error,
          last_response_code: result.responseCode,
          ...(result.status === 'sent' ? { sent_at: at, smtp_response: result.smtpResponse } : {}),
          ...(result.status === 'failed' ? { failed_at: at } : {}),
        })
        .where('id', '=', job.id)
        .where('status', '=', 'sending')
        // The fence: a later claim has incremented attempt_count, and then this result is not ours to write.
        .where('attempt_count', '=', job.attemptNumber)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    async find(id) {
      const row = await db.selectFrom('email_messages').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    async list(filter) {
      if (!Number.isSafeInteger(filter.limit) || filter.limit < 1 || filter.limit > MAX_ROWS)
        throw new RangeError('bad limit');
      let query = newestFirst(db.selectFrom('email_messages').selectAll(), filter.limit);
      if (filter.merchantId !== undefined) query = query.where('merchant_id', '=', filter.merchantId);
      if (filter.paymentId !== undefined) query = query.where('payment_id', '=', filter.paymentId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      return (await query.execute()).map(toRecord);
    },
  };
}
