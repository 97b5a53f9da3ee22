import type { Selectable } from 'kysely';
import { getAddress } from 'viem';
import type { BridgeStep, BridgeTransfer, StepTransaction, TransferSpeed } from '../../app/bridge/ports.ts';
import type { BridgeTransfersTable } from './schema.ts';
import { dateOrNull } from './storedValues.ts';

/** Bridge transfers as rows and back (migration 0027): money and nonces as TEXT integers, times as ISO text. */

export function stepTransactionColumns(step: 'burn' | 'mint', tx: StepTransaction | null) {
  const values = {
    relayer: tx?.relayer.toLowerCase() ?? null,
    nonce: tx?.nonce.toString() ?? null,
    raw_tx: tx?.rawTx ?? null,
    tx_hash: tx?.txHash.toLowerCase() ?? null,
  };
  return step === 'burn'
    ? {
        burn_relayer: values.relayer,
        burn_nonce: values.nonce,
        burn_raw_tx: values.raw_tx,
        burn_tx_hash: values.tx_hash,
      }
    : {
        mint_relayer: values.relayer,
        mint_nonce: values.nonce,
        mint_raw_tx: values.raw_tx,
        mint_tx_hash: values.tx_hash,
      };
}

export function toRow(t: BridgeTransfer) {
  return {
    id: t.id,
    payment_id: t.paymentId,
    source_chain_id: t.sourceChainId,
    source_domain: t.sourceDomain,
    home_chain_id: t.homeChainId,
    token_address: t.tokenAddress.toLowerCase(),
    deposit_address: t.depositAddress.toLowerCase(),
    amount_base_units: t.amountBaseUnits.toString(),
    speed: t.speed,
    max_fee_base_units: t.maxFeeBaseUnits.toString(),
    quoted_max_fee_base_units: t.quotedMaxFeeBaseUnits.toString(),
    min_finality_threshold: t.minFinalityThreshold,
    step: t.step,
    ...stepTransactionColumns('burn', t.burnTx),
    burn_tx_hash: t.burnTxHash?.toLowerCase() ?? null,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

function stepTransactionOf(
  relayer: string | null,
  nonce: string | null,
  rawTx: string | null,
  txHash: string | null,
): StepTransaction | null {
  if (relayer === null || nonce === null || rawTx === null || txHash === null) return null;
  return { relayer: getAddress(relayer), nonce: BigInt(nonce), rawTx, txHash };
}

const STEPS: readonly BridgeStep[] = ['burn', 'attest', 'mint', 'done'];
const SPEEDS: readonly TransferSpeed[] = ['fast', 'standard'];
const amount = (value: string | null) => (value === null ? null : BigInt(value));

export function toTransfer(row: Selectable<BridgeTransfersTable>): BridgeTransfer {
  const step = STEPS.find((s) => s === row.step);
  const speed = SPEEDS.find((s) => s === row.speed);
  if (!step || !speed) throw new Error(`bridge transfer ${row.id} has an unknown step or speed`);
  return {
    id: row.id,
    paymentId: row.payment_id,
    sourceChainId: Number(row.source_chain_id),
    sourceDomain: Number(row.source_domain),
    homeChainId: Number(row.home_chain_id),
    tokenAddress: getAddress(row.token_address),
    depositAddress: getAddress(row.deposit_address),
    amountBaseUnits: BigInt(row.amount_base_units),
    speed,
    maxFeeBaseUnits: BigInt(row.max_fee_base_units),
    quotedMaxFeeBaseUnits: BigInt(row.quoted_max_fee_base_units),
    minFinalityThreshold: Number(row.min_finality_threshold),
    step,
    burnTx: stepTransactionOf(row.burn_relayer, row.burn_nonce, row.burn_raw_tx, row.burn_tx_hash),
    burnTxHash: row.burn_tx_hash,
    burnBlockNumber: row.burn_block_number === null ? null : BigInt(row.burn_block_number),
    message: row.message,
    attestedMessage: row.attested_message,
    attestation: row.attestation,
    cctpNonce: row.cctp_nonce,
    feeExecutedBaseUnits: amount(row.fee_executed_base_units),
    mintTx: stepTransactionOf(row.mint_relayer, row.mint_nonce, row.mint_raw_tx, row.mint_tx_hash),
    mintTxHash: row.mint_tx_hash,
    mintedBaseUnits: amount(row.minted_base_units),
    expiredAt: dateOrNull(row.expired_at),
    reattestRequestedAt: dateOrNull(row.reattest_requested_at),
    attempts: Number(row.attempts),
    nextAttemptAt: dateOrNull(row.next_attempt_at),
    lastError: row.last_error,
    stalledSince: dateOrNull(row.stalled_since),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    completedAt: dateOrNull(row.completed_at),
  };
}
