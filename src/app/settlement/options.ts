import type { Logger } from 'pino';
import type { PayoutPolicy } from '../../domain/payout.ts';
import type { ChainReader } from '../chain/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { Relayer, SettlementStore } from './ports.ts';

export interface SettlePaymentsDeps {
  readonly settlements: SettlementStore;
  readonly relayer: Relayer;
  /** Finality, as the watcher sees it: a settlement is applied once its transaction's block is final. */
  readonly chain: Pick<ChainReader, 'finalizedBlockNumber'>;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export interface SettleOptions {
  readonly chainId: number;
  /** The dust threshold (final funds below it wait for more) and when a failing payout counts as delayed. */
  readonly payoutPolicy: PayoutPolicy;
  /** Below this the relayer's gas balance is warned about on every send (`ChainSettings.relayerLowBalanceWei`). */
  readonly relayerLowBalanceWei: bigint;
  /** Payments per flush transaction; default 50, at most 100 (the factories' MAX_BATCH). */
  readonly maxBatch?: number;
  /** A broadcast transaction not mined after this long is replaced with higher fees; default 60 s. */
  readonly stuckAfterMs?: number;
}
