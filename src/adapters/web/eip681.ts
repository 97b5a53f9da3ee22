import { getAddress } from 'viem';

export interface TokenTransferRequest {
  readonly tokenAddress: string;
  readonly chainId: number;
  readonly recipient: string;
  readonly amountBaseUnits: bigint;
}

/**
 * An EIP-681 payment request for an ERC-20 transfer:
 * `ethereum:<token>@<chainId>/transfer?address=<recipient>&uint256=<amount>`.
 *
 * The amount is written as plain integer digits of base units. EIP-681 also allows `1.5e6`-style values, but
 * wallets disagree on reading them (some apply the token's decimals, some do not), and plain digits are read
 * the same way by all of them. The chain id is always present, so a wallet on another network asks to switch
 * instead of sending on the wrong chain.
 */
export function eip681TransferLink(request: TokenTransferRequest): string {
  if (!Number.isSafeInteger(request.chainId) || request.chainId <= 0) {
    throw new RangeError(`invalid chain id ${request.chainId}`);
  }
  if (request.amountBaseUnits < 0n) throw new RangeError('a transfer amount cannot be negative');
  // getAddress validates (and checksums) both addresses: a malformed one throws instead of reaching a QR code.
  const token = getAddress(request.tokenAddress);
  const recipient = getAddress(request.recipient);
  return `ethereum:${token}@${request.chainId}/transfer?address=${recipient}&uint256=${request.amountBaseUnits.toString(10)}`;
}
