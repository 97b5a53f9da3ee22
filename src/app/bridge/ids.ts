import { randomToken } from '../../domain/credentials.ts';

export function newBridgeTransferId(): string {
  return `brg_${randomToken(22)}`;
}
