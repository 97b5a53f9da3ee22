import type { Account, Address, Chain, Hex, LocalAccount, Transport, WalletClient } from 'viem';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../src/adapters/chain/eip3009.ts';
import type { AuthorizationDomain, TransferAuthorization } from '../../src/domain/transferAuthorization.ts';

/** Signs an EIP-3009 authorization as a wallet does (EIP-712), with an anvil wallet or a bare local account. */
export function signAuthorization(
  signer: WalletClient<Transport, Chain, Account> | LocalAccount,
  domain: AuthorizationDomain,
  authorization: TransferAuthorization,
): Promise<Hex> {
  const typedData = {
    domain,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: authorization.from as Address,
      to: authorization.to as Address,
      value: authorization.valueBaseUnits,
      validAfter: authorization.validAfter,
      validBefore: authorization.validBefore,
      nonce: authorization.nonce as Hex,
    },
  } as const;
  // A local account is its own signer; a wallet client signs with the account it holds.
  if (signer.type === 'local') return (signer as LocalAccount).signTypedData(typedData);
  return (signer as WalletClient<Transport, Chain, Account>).signTypedData(typedData);
}
