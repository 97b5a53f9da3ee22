import type { OutboxEvent } from '../../app/chain/ports.ts';
import type { Payment } from '../../domain/payment.ts';
import { isoTimestamp } from '../../domain/timestamp.ts';
import type { Db } from './db.ts';
import { insertOutboxEvent } from './outbox.ts';
import { toPayment } from './paymentRepository.ts';

/**
 * A payment paid whole by one transaction the service sent itself (an x402 call's relayed authorization, a
 * subscription period's charge), with its `payment.paid` in the same transaction, once: a payment already paid is
 * left as it is (false). `amountBaseUnits` absent: the payment's own quoted USDC amount.
 */
export async function markPaidByTransaction(
  trx: Db,
  paymentId: string,
  paid: {
    readonly txHash: string;
    readonly chainId: number;
    readonly token: string;
    readonly at: Date;
    readonly amountBaseUnits?: bigint;
  },
  event: (payment: Payment) => OutboxEvent,
): Promise<boolean> {
  const updated = await trx
    .updateTable('payments')
    .set({
      status: 'paid',
      announced_status: 'paid',
      amount_received_base_units:
        paid.amountBaseUnits === undefined
          ? (eb) => eb.ref('usdc_amount_base_units')
          : paid.amountBaseUnits.toString(),
      paid_at: isoTimestamp(paid.at),
      txid: paid.txHash,
      txid_chain_id: paid.chainId,
      paid_token_address: paid.token,
      paid_token_symbol: 'USDC',
      updated_at: isoTimestamp(paid.at),
    })
    .where('id', '=', paymentId)
    .where('kind', '=', 'payment')
    .where('status', '<>', 'paid')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return false;
  const row = await trx
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', paymentId)
    .executeTakeFirstOrThrow();
  await insertOutboxEvent(trx, event(toPayment(row)));
  return true;
}
