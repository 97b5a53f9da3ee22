/**
 * The bridge and settler steps of a worker that moves a source chain's money to the home chain through CCTP v2,
 * built as a freshly started worker builds them, on chains from cctpChains.ts: what tests of the whole
 * burn → attestation → mint → flush path share.
 */
import type { Logger } from 'pino';
import type { Address, Hex } from 'viem';
import { expect } from 'vitest';
import { createAttestationClient } from '../../src/adapters/cctp/attestationClient.ts';
import { createAttestations } from '../../src/adapters/cctp/attestations.ts';
import { createHomeMints, createSourceBurns } from '../../src/adapters/cctp/burnsAndMints.ts';
import { chainReader } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { bridgeRepository } from '../../src/adapters/db/bridgeRepository.ts';
import type { DatabaseHandle } from '../../src/adapters/db/database.ts';
import { settlementRepository } from '../../src/adapters/db/settlementRepository.ts';
import type { HomeBridgeDeps, SourceBridgeDeps } from '../../src/app/bridge/options.ts';
import { refreshPayments } from '../../src/app/chain/refreshPayments.ts';
import type { SettleOptions, SettlePaymentsDeps } from '../../src/app/settlement/options.ts';
import { settleWithMintsOnce } from '../../src/app/settlement/settleWithMints.ts';
import type { Clock } from '../../src/app/shared/ports.ts';
import { type CctpChain, CIRCLE, RELAYER_KEY } from './cctpChains.ts';
import { capturingLogger } from './logCapture.ts';

export interface BridgeWorker {
  readonly source: SourceBridgeDeps;
  readonly home: HomeBridgeDeps;
  readonly settle: SettlePaymentsDeps;
  readonly logger: Logger;
}

/** A bridge job for `source` and the settler of `home`, one relayer key on both; a transaction final once mined. */
export function bridgeWorker(setup: {
  handle: DatabaseHandle;
  clock: Clock;
  home: CctpChain;
  source: CctpChain;
  attestationUrl: string;
}): BridgeWorker {
  const { clock, home, source } = setup;
  const { logger } = capturingLogger();
  // As the worker wires it: a final mint refreshes its payment's status (a fast transfer is paid then).
  const bridge = bridgeRepository(setup.handle, {
    afterMint: (tx, paymentId, at) => refreshPayments(tx, [paymentId], at),
  });
  const settlements = settlementRepository(setup.handle);
  const final = (chain: CctpChain) =>
    chainReader(chain.anvil.publicClient, { kind: 'confirmations', confirmations: 0 });
  const relayerOf = (chain: CctpChain) =>
    createRelayer({ client: chain.anvil.publicClient, chainId: chain.chainId, relayerKey: RELAYER_KEY });
  const homeRelayer = relayerOf(home);
  return {
    logger,
    source: {
      bridge,
      clock,
      logger,
      relayer: relayerOf(source),
      relayerBalances: settlements,
      source: createSourceBurns({
        client: source.anvil.publicClient,
        chainId: source.chainId,
        domain: source.domain,
        usdc: source.cctp.usdc,
        tokenMessenger: source.cctp.tokenMessenger,
        messageTransmitter: source.cctp.messageTransmitter,
        finality: final(source),
      }),
      attestations: createAttestations({
        client: createAttestationClient({ baseUrl: setup.attestationUrl, timeoutMs: 5_000 }),
        baseUrl: setup.attestationUrl,
        timeoutMs: 5_000,
      }),
    },
    home: {
      bridge,
      clock,
      logger,
      relayer: homeRelayer,
      home: createHomeMints({
        client: home.anvil.publicClient,
        chainId: home.chainId,
        usdc: home.cctp.usdc,
        messageTransmitter: home.cctp.messageTransmitter,
        finality: final(home),
      }),
    },
    settle: { settlements, relayer: homeRelayer, chain: final(home), clock, logger },
  };
}

/** Home settler passes until the minted money is flushed (bounded), mining what each pass sent. */
export async function mintAndFlush(
  worker: BridgeWorker,
  home: CctpChain,
  settleOptions: SettleOptions,
): Promise<void> {
  for (let pass = 0; pass < 6; pass++) {
    const result = await settleWithMintsOnce(worker.settle, worker.home, settleOptions);
    if (result.settle?.inFlight?.kind === 'confirmed') return;
    // What this pass sent is mined before the next looks for it.
    if (result.mint.kind === 'in-flight') await mined(home, result.mint.txHash as Hex);
    const send = result.settle?.send;
    if (send?.kind === 'sent') await mined(home, send.txHash as Hex);
  }
  throw new Error('the minted money was not flushed in six passes');
}

export function usdcOf(chain: CctpChain, owner: string): Promise<bigint> {
  return chain.anvil.publicClient.readContract({
    address: chain.cctp.usdc,
    abi: testUsdcAbi,
    functionName: 'balanceOf',
    args: [owner as Address],
  });
}

/** The transaction's receipt, which must be a success. */
export async function mined(chain: CctpChain, hash: Hex) {
  const receipt = await chain.anvil.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

/** USDC minted by Circle to the customer (its own block), then sent by them to `to` in the next: that receipt. */
export async function customerPays(chain: CctpChain, customerIndex: number, to: string, amount: bigint) {
  const customer = chain.anvil.wallet(customerIndex);
  await mined(
    chain,
    await chain.anvil.wallet(CIRCLE).writeContract({
      address: chain.cctp.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [customer.account.address, amount],
    }),
  );
  const hash = await customer.writeContract({
    address: chain.cctp.usdc,
    abi: testUsdcAbi,
    functionName: 'transfer',
    args: [to as Address, amount],
  });
  return mined(chain, hash);
}

/** The payment's balance rows, one per chain: [chain id, received, bridged in, settled (flushed or burnt)]. */
export async function depositBalancesOf(handle: DatabaseHandle, paymentId: string) {
  const rows = await handle.db
    .selectFrom('deposit_balances')
    .select(['chain_id', 'received_base_units', 'bridged_base_units', 'settled_base_units'])
    .where('owner_id', '=', paymentId)
    .orderBy('chain_id')
    .execute();
  return rows.map((b) => [
    Number(b.chain_id),
    b.received_base_units,
    b.bridged_base_units,
    b.settled_base_units,
  ]);
}
