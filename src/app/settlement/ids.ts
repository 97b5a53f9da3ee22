import { randomToken } from '../../domain/credentials.ts';

export function newSettlementId(): string {
  return `stl_${randomToken(22)}`;
}

export function newRelayerTransactionId(): string {
  return `rtx_${randomToken(22)}`;
}
