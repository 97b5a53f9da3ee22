import type { X402AccountTerms, X402Call, X402Store } from '../../app/x402/ports.ts';
import type { Payment } from '../../domain/payment.ts';
import type { DatabaseHandle } from './database.ts';
import type { Db } from './db.ts';
import { gaslessRow, toGaslessAuthorization } from './gaslessRepository.ts';
import { markPaidByTransaction } from './paidByTransaction.ts';
import { paymentRow, toPayment } from './paymentRepository.ts';
import { isUniqueViolation } from './uniqueViolation.ts';

/** The x402 facilitator's records (migrations 0047, 0051): merchants' x402 addresses and the calls settled. */
export function x402Repository(handle: DatabaseHandle): X402Store {
  const { db } = handle;
  return {
    accountOf: (merchantId, mode, terms) => accountOf(db, merchantId, mode, terms),
    async accountAt(merchantId, mode, depositAddress) {
      const row = await accountsOf(db, merchantId, mode)
        .where('deposit_address', '=', depositAddress.toLowerCase())
        .executeTakeFirst();
      return row && toPayment(row);
    },
    async insertAccount(account) {
      try {
        await db.insertInto('payments').values(paymentRow(account)).execute();
        return account;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const stored = await accountOf(db, account.merchantId, account.mode, {
          payoutAddress: account.payoutAddress,
          commissionBps: account.quote.commissionBps,
        });
        if (!stored) throw error;
        return stored;
      }
    },
    async accountOfCall(paymentId) {
      const row = await db
        .selectFrom('x402_payments as x')
        .innerJoin('gasless_authorizations as g', 'g.id', 'x.authorization_id')
        .innerJoin('payments as a', (join) =>
          join.onRef('a.merchant_id', '=', 'x.merchant_id').onRef('a.deposit_address', '=', 'g.to_address'),
        )
        .selectAll('a')
        .where('x.payment_id', '=', paymentId)
        .where('a.kind', '=', 'x402')
        .executeTakeFirst();
      return row && toPayment(row);
    },
    insertCall: (call) => insertCall(db, call),
    findCall: (chainId, token, from, nonce) => findCall(db, chainId, token, from, nonce),
    recordPaid: (paymentId, paid, event) =>
      db
        .transaction()
        .execute((trx) =>
          markPaidByTransaction(trx, paymentId, { ...paid, token: paid.token.toLowerCase() }, event),
        ),
  };
}

/** A merchant's x402 addresses of one mode: rows of `payments` of kind `x402` (decision 0059). */
function accountsOf(db: Db, merchantId: string, mode: Payment['mode']) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('mode', '=', mode)
    .where('kind', '=', 'x402');
}

async function accountOf(
  db: Db,
  merchantId: string,
  mode: Payment['mode'],
  terms: X402AccountTerms,
): Promise<Payment | undefined> {
  const row = await accountsOf(db, merchantId, mode)
    .where('payout_address', '=', terms.payoutAddress)
    .where('commission_bps', '=', terms.commissionBps)
    .executeTakeFirst();
  return row && toPayment(row);
}

async function insertCall(db: Db, call: X402Call): Promise<'inserted' | 'nonce-used'> {
  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('payments').values(paymentRow(call.payment)).execute();
      await trx.insertInto('gasless_authorizations').values(gaslessRow(call.authorization)).execute();
      await trx
        .insertInto('x402_payments')
        .values({
          payment_id: call.payment.id,
          authorization_id: call.authorization.id,
          merchant_id: call.payment.merchantId,
          network: call.network,
          resource_url: call.resourceUrl,
          payer: call.authorization.from,
          created_at: call.payment.createdAt.toISOString(),
        })
        .execute();
    });
    return 'inserted';
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const { authorization: a } = call;
    // The payment's id is new and its authorization's id random: only the nonce index can refuse it.
    if (await findCall(db, a.chainId, a.tokenAddress, a.from, a.nonce)) return 'nonce-used';
    throw error;
  }
}

async function findCall(
  db: Db,
  chainId: number,
  token: string,
  from: string,
  nonce: string,
): Promise<X402Call | undefined> {
  const row = await db
    .selectFrom('gasless_authorizations as g')
    .innerJoin('x402_payments as x', 'x.authorization_id', 'g.id')
    .selectAll('g')
    .select(['x.network as x402_network', 'x.resource_url as x402_resource_url'])
    .where('g.chain_id', '=', chainId)
    .where('g.token_address', '=', token.toLowerCase())
    .where('g.from_address', '=', from.toLowerCase())
    .where('g.nonce', '=', nonce.toLowerCase())
    .executeTakeFirst();
  if (!row) return undefined;
  const payment = await db
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', row.payment_id)
    .executeTakeFirst();
  if (!payment) throw new Error(`x402 call ${row.id} has no payment`);
  const { x402_network, x402_resource_url, ...authorization } = row;
  return {
    payment: toPayment(payment),
    authorization: toGaslessAuthorization(authorization),
    network: x402_network,
    resourceUrl: x402_resource_url,
  };
}
