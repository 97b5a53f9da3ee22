import type { Kysely } from 'kysely';
import type { EmailMessage } from '../../app/email/ports.ts';
import type { DatabaseSchema } from './schema.ts';

/**
 * Queues a message in the caller's transaction: the transaction of the change that causes it (a payment paid,
 * a refund sent), so that the message exists if and only if that change committed — as webhook events do
 * (outbox.ts).
 */
export async function insertEmailMessage(trx: Kysely<DatabaseSchema>, message: EmailMessage): Promise<void> {
  await trx
    .insertInto('email_messages')
    .values({
      id: message.id,
      kind: message.kind,
      merchant_id: message.merchantId,
      payment_id: message.paymentId,
      refund_id: message.refundId,
      recipient: message.recipient,
      language: message.language,
      subject: message.subject,
      text_body: message.text,
      html_body: message.html,
      message_id: message.messageId,
      created_at: message.createdAt.toISOString(),
    })
    .execute();
}
