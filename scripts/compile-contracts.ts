/**
 * Writes the compiled-contracts cache (`src/adapters/chain/artifacts/contracts.json`) so that starting the
 * service or the tests never waits for solc. Recompiles only when a source or the compiler changed.
 *
 *   node --import tsx scripts/compile-contracts.ts
 */
import { CONTRACTS_CACHE_PATH, loadContracts } from '../src/adapters/chain/contracts.ts';

const contracts = await loadContracts();
const sizes = Object.entries(contracts).map(
  ([name, artifact]) => `${name} ${(artifact.deployedBytecode.length - 2) / 2} B`,
);
process.stdout.write(`contracts: ${CONTRACTS_CACHE_PATH} (${sizes.join(', ')})\n`);
