import type { Db } from './db.ts';

/** A deposit balance's key: whose deposit address (a payment's, a refund's), on which chain, of which token. */
export interface DepositBalanceKey {
  readonly ownerId: string;
  readonly chainId: number;
  readonly tokenAddress: string;
}

/**
 * The deposit balance of this key, if there is a row yet (what arrived, what was accepted, settled, burnt or
 * minted there): the read before each of its writes, by the settler, the bridge and an operator's sweep. Token
 * addresses are stored in lowercase.
 */
export function depositBalanceOf(db: Db, key: DepositBalanceKey) {
  return db
    .selectFrom('deposit_balances')
    .selectAll()
    .where('owner_id', '=', key.ownerId)
    .where('chain_id', '=', key.chainId)
    .where('token_address', '=', key.tokenAddress.toLowerCase())
    .executeTakeFirst();
}
