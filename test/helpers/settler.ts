import type { Logger } from 'pino';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { settlementRepository } from '../../src/adapters/db/settlementRepository.ts';
import type { SettlePaymentsDeps } from '../../src/app/settlement/options.ts';
import { ANVIL_RELAYER_KEY, type ChainHarness } from './chainHarness.ts';

/**
 * A settler as a freshly started worker builds it: new RPC clients, a new repository, nothing in memory; the
 * relayer is anvil's account 0, the chain read through its `finalized` tag.
 */
export function freshSettler(
  h: ChainHarness,
  logger: Logger,
  overrides: Partial<SettlePaymentsDeps> = {},
): SettlePaymentsDeps {
  return {
    settlements: settlementRepository(h.database.handle),
    relayer: createRelayer({
      client: createRpcClient([h.anvil.rpcUrl]),
      chainId: h.anvil.chain.id,
      relayerKey: ANVIL_RELAYER_KEY,
    }),
    chain: chainReader(createRpcClient([h.anvil.rpcUrl]), { kind: 'finalized' }),
    clock: h.clock,
    logger,
    ...overrides,
  };
}
